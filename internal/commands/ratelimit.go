package commands

var rateLimitCommands = []*Command{}
