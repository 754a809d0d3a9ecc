package redislog

import (
	"context"
	"fmt"
	"log/slog"
)

// Msg is one of Redis 7.0.15's log lines: its level, its text as a Go
// format (C's %ld and %lld are %d; everything else is Redis's own), and
// whether Redis writes it from a fork child (role C) rather than the
// server.
type Msg struct {
	Level  slog.Level
	Format string
	Child  bool
}

// Log writes m with args, as serverLog(m.Level, m.Format, args...).
func (m Msg) Log(log *slog.Logger, args ...any) {
	if !log.Enabled(context.Background(), m.Level) {
		return
	}
	text := m.Format
	if len(args) > 0 {
		text = fmt.Sprintf(m.Format, args...)
	}
	if m.Child {
		log.Log(context.Background(), m.Level, text, As(Child))
		return
	}
	log.Log(context.Background(), m.Level, text)
}

// Text is m's line text with args.
func (m Msg) Text(args ...any) string {
	if len(args) == 0 {
		return m.Format
	}
	return fmt.Sprintf(m.Format, args...)
}

func notice(f string) Msg  { return Msg{Level: LevelNotice, Format: f} }
func warning(f string) Msg { return Msg{Level: LevelWarning, Format: f} }
func child(m Msg) Msg      { m.Child = true; return m }

// RDB (rdb.c, server.c loadDataFromDisk).
var (
	BgsaveStarted      = notice("Background saving started by pid %d")
	DBSaved            = child(notice("DB saved on disk")) // by the saving child; SAVE's from the server
	DBSavedServer      = notice("DB saved on disk")
	BgsaveOK           = notice("Background saving terminated with success")
	BgsaveError        = warning("Background saving error")
	BgsaveSignal       = warning("Background saving terminated by signal %d")
	BgsaveForkFailed   = warning("Can't save in background: fork: %s")
	WriteError         = warning("Write error saving DB on disk(%s): %s")
	LoadingRDBVersion  = notice("Loading RDB produced by version %s")
	RDBAge             = notice("RDB age %d seconds")
	RDBMemory          = notice("RDB memory usage when created %.2f Mb")
	DoneLoadingRDB     = notice("Done loading RDB, keys loaded: %d, keys expired: %d.")
	DoneLoadingSkipped = warning("Done loading RDB, keys loaded: %d, keys expired: %d, empty keys skipped: %d.")
	DBLoadedFromDisk   = notice("DB loaded from disk: %.3f seconds")
	WrongSignature     = warning("Wrong signature trying to load DB from file")
	WrongChecksum      = warning("Wrong RDB checksum expected: (%x) but got (%x). Aborting now.")
	ShortRead          = warning("Short read or OOM loading DB. Unrecoverable error, aborting now.")
	RDBFormatFailure   = warning("%s. Failure loading rdb format")
	TerminatingOnRDB   = warning("Terminating server after rdb file reading failure.")
	FatalLoadingDB     = warning("Fatal error loading the DB: %s. Exiting.")
)

// AOF (aof.c, server.c).
var (
	AOFRewriteStarted     = notice("Background append only file rewriting started by pid %d")
	AOFRewriteChildOK     = notice("Background AOF rewrite terminated with success")
	AOFRewriteFinished    = notice("Background AOF rewrite finished successfully")
	AOFBaseRenamed        = notice("Successfully renamed the temporary AOF base file %s into %s")
	AOFIncrRenamed        = notice("Successfully renamed the temporary AOF incr file %s into %s")
	AOFCreatingBase       = notice("Creating AOF base file %s on server start")
	AOFCreatingIncr       = notice("Creating AOF incr file %s on server start")
	AOFIncrOnRewrite      = notice("Creating AOF incr file %s on background rewrite")
	AOFReadingPreamble    = notice("Reading RDB preamble from AOF file...")
	AOFReadingBase        = notice("Reading RDB base file on AOF loading...")
	AOFReadingTail        = notice("Reading the remaining AOF tail...")
	AOFLoadedBase         = notice("DB loaded from base file %s: %.3f seconds")
	AOFLoadedIncr         = notice("DB loaded from incr file %s: %.3f seconds")
	DBLoadedFromAOF       = notice("DB loaded from append only file: %.3f seconds")
	AOFUnexpectedEOF      = warning("Unexpected end of file reading the append only file %s. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.")
	AOFBadFormat          = warning("Bad file format reading the append only file %s: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>")
	AOFCantOpen           = warning("Fatal error: can't open the append log file %s for reading: %s")
	AOFRewriteRetryDelay  = warning("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes")
	AOFKillingRewrite     = notice("Killing running AOF rewrite child: %d")
	AOFFsyncAtShutdown    = notice("Calling fsync() on the AOF file.")
	AOFRewriteInShutdown  = warning("There is a child rewriting the AOF. Killing it!")
	AOFEnabledWhileRewrit = warning("AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.")
	AOFMigrated           = notice("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).")
	AOFMigrateMoveFailed  = warning("Error trying to move the old AOF file %s into dir %s: %s")
	AOFDirFailed          = warning("Can't open or create append-only dir %s: %s")
	AOFPreambleFailed     = warning("Error reading the RDB preamble of the AOF file %s, AOF loading aborted")
	AOFBaseFailed         = warning("Error reading the RDB base file %s, AOF loading aborted")
	AOFLoadedByDebug      = warning("Append Only File loaded by DEBUG LOADAOF")
)

// Replication (replication.c, networking.c).
var (
	ReplicaAsksSync        = notice("Replica %s asks for synchronization")
	ReplicaWrongOffset     = warning("Replica %s asks for synchronization but with a wrong offset")
	FullResyncRequested    = notice("Full resync requested by replica %s")
	PsyncIDMismatch        = notice("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')")
	PsyncOffsetTooFar      = notice("Partial resynchronization not accepted: Requested offset for second ID was %d, but I can reply up to %d")
	PsyncAccepted          = notice("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.")
	BgsaveForSync          = notice("Starting BGSAVE for SYNC with target: %s") // "disk" or "replicas sockets"
	WaitingBgsaveForSync   = notice("Waiting for end of BGSAVE for SYNC")
	SyncWithReplicaOK      = notice("Synchronization with replica %s succeeded")
	ReplicaConnLost        = warning("Connection with replica %s lost.")
	MasterConnLost         = warning("Connection with master lost.")
	ConnectingToMaster     = notice("Connecting to MASTER %s:%d")
	ReconnectingToMaster   = notice("Reconnecting to MASTER %s:%d after failure")
	SyncStarted            = notice("MASTER <-> REPLICA sync started")
	SyncConnectFired       = notice("Non blocking connect for SYNC fired the event.")
	MasterRepliedPing      = notice("Master replied to PING, replication can continue...")
	TryingPsync            = notice("Trying a partial resynchronization (request %s:%s).")
	PsyncNoCachedMaster    = notice("Partial resynchronization not possible (no cached master)")
	FullResyncFromMaster   = notice("Full resync from master: %s:%d")
	PsyncWithMasterOK      = notice("Successful partial resynchronization with master.")
	MasterAcceptedPsync    = notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.")
	SyncReceivingBytes     = notice("MASTER <-> REPLICA sync: receiving %d bytes from master %s")
	SyncReceivingStreamed  = notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF %s")
	SyncFlushingOldData    = notice("MASTER <-> REPLICA sync: Flushing old data")
	SyncLoadingDB          = notice("MASTER <-> REPLICA sync: Loading DB in memory")
	SyncFinished           = notice("MASTER <-> REPLICA sync: Finished with success")
	ReplicaofEnabled       = notice("REPLICAOF %s:%d enabled (user request from '%s')")
	MasterModeEnabled      = notice("MASTER MODE enabled (user request from '%s')")
	CachingMaster          = notice("Caching the disconnected master state.")
	DiscardingCachedMaster = notice("Discarding previously cached master state.")
	SecondaryReplID        = warning("Setting secondary replication ID to %s, valid up to offset: %d. New replication ID is %s")
)

// Shutdown and signals (server.c).
var (
	UserShutdown        = warning("User requested shutdown...")
	SavingFinalRDB      = notice("Saving the final RDB snapshot before exiting.")
	SaveErrorExitAnyway = warning("Error trying to save the DB. Exit anyway.")
	SaveErrorCantExit   = warning("Error trying to save the DB, can't exit.")
	RemovingPidFile     = notice("Removing the pid file.")
	RemovingUnixSocket  = notice("Removing the unix socket file.")
	UnixSocketRmError   = warning("Error removing the unix socket file: %s")
	ReadyToExit         = warning("Redis is now ready to exit, bye bye...")
	ShutdownErrors      = warning("Errors trying to shut down the server. Check the logs for more information.")
	SIGTERMErrors       = warning("SIGTERM received but errors trying to shut down the server, check the logs for more information")
	ShutdownAborted     = notice("Shutdown manually aborted.")
	ReceivedSIGINT      = warning("Received SIGINT scheduling shutdown...")
	ReceivedSIGTERM     = warning("Received SIGTERM scheduling shutdown...")
	ReceivedShutdown    = warning("Received shutdown signal, scheduling shutdown...")
	ReceivedInLoading   = warning("Received shutdown signal during loading, scheduling shutdown.")
	YouInsist           = warning("You insist... exiting now.")
	MaxmemoryTooSmall   = warning("WARNING: You specified a maxmemory value that is less than 1MB (current value is %d bytes). Are you sure this is what you really want?")
	UnixSocketFailed    = warning("Failed opening Unix socket: %s")
)
