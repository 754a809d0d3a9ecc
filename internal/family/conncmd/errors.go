package conncmd

// Moved from the engine: texts only this package gives.
const (
	errWrongPass = "WRONGPASS invalid username-password pair or user is disabled."
)
