package commands

var scriptingCommands = []*Command{}
