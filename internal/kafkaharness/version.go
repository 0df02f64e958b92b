package kafkaharness

import (
	"strconv"
	"strings"
)

// atLeast reports whether the Kafka release version ("3.9.1") is major.minor
// or later; an unreadable version counts as the newest.
func atLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return true
	}
	return ma > major || ma == major && mi >= minor
}

// scramCred is the user to format KRaft storage with (--add-scram), nil before
// Kafka 3.5: KRaft keeps SCRAM credentials in the metadata log from 3.5 on
// (KIP-900), which brought --add-scram; an older KRaft broker has no SCRAM,
// and SCRAM logins to it fail.
func scramCred(version string, cred SASLCredentials) *SASLCredentials {
	if !atLeast(version, 3, 5) {
		return nil
	}
	return &cred
}

// servesSCRAM reports whether the cluster keeps SCRAM credentials: ZooKeeper
// mode on every release, KRaft from Kafka 3.5 on (scramCred).
func (c *Cluster) servesSCRAM() bool {
	return c.Ports.ZooKeeper != 0 || atLeast(c.Version, 3, 5)
}
