package commands

func init() {
	Install(connectionCommands, serverCommands, keyCommands, expireCommands, stringCommands,
		bitopsCommands, zsetCommands, rateLimitCommands, hllCommands, hashCommands, listCommands,
		setCommands, geoCommands, sortCommands)
}
