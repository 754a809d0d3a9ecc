package commands

var zsetCommands = []*Command{}
