package commands

var expireCommands = []*Command{}
