package engine

// What the external tests (package engine_test, which drive the families
// through internal/commands) may see of the blocked-key tables.

// AwaitKeyForTest makes key look waited on, with no client behind it.
func (e *Engine) AwaitKeyForTest(k WaitKey) { e.waiting[k] = nil }

// TakeReadyForTest returns the keys signalled ready since the last call.
func (e *Engine) TakeReadyForTest() []WaitKey {
	r := e.ready
	e.ready = nil
	return r
}
