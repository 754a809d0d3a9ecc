package commands

var keyCommands = []*Command{}
