package broker

import "fmt"

// UnsupportedError: the broker is too old for what was asked.
type UnsupportedError struct {
	What  string // e.g. "the max timestamp offset (ListOffsets v7, KIP-734)"
	Since string // the first Apache Kafka version that has it
}

// oldestSupported is the release an UnsupportedError names when a broker lacks an API, or a
// version of one, that every read needs (wire.CheckApiVersions: Metadata v4, ListOffsets v1).
const oldestSupported = "0.11"

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s is unsupported by this broker: it needs Apache Kafka %s or later", e.What, e.Since)
}
