package commands

var stringCommands = []*Command{}
