package commands

var serverCommands = []*Command{}
