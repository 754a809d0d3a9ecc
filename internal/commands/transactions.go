package commands

var transactionCommands = []*Command{}
func (e *Engine) unwatchAll(c *Client) {}
