package admin

// Moved from the engine: texts only this package gives.
const (
	errConfigSetUnknown = "ERR Unknown option or number of arguments for CONFIG SET - '"
)

// SHUTDOWN, CLIENT, CONFIG and COMMAND (the tests name them too).
const (
	ErrNoShutdown      = "ERR No shutdown in progress."
	ErrNoSuchClient    = "ERR No such client"
	ErrClientIDRange   = "ERR client-id should be greater than 0"
	ErrInvalidClientID = "ERR Invalid client ID"
	ErrNoConfigFile    = "ERR The server is running without a config file"
	ErrInvalidCommand  = "ERR Invalid command specified"
	ErrGetKeysArity    = "ERR Invalid number of arguments specified for command"
	ErrGetKeysNoKeys   = "ERR The command has no key arguments"
)
