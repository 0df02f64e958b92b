// Package wire is the bottom layer of kafkaclient: what the provider knows of Kafka's protocol
// beyond the message types, which are franz-go's kmsg (generated from Kafka's own definitions)
// after the handshake and kafka-go's for the handshake itself. versions.go: the APIs the provider
// sends, the highest version of each, and the versions and special values that change what a read
// can ask; frames.go: the checks of what a peer sends before anything decodes it (frame sizes, the
// first answer, ApiVersions); records.go: the reading of Fetch's record batches (NextRecordAt, the
// record a consumer would be given next at an offset and its timestamp); records_compressed.go:
// what compressed records may claim before kafka-go's codecs allocate it; assignment.go: a classic
// consumer's member assignment; errorcodes.go: Kafka's names for error codes; answer_codes.go:
// the error codes an answer holds, for the logs. It knows no
// connection and no address: a check says what is wrong with bytes, and the caller says who sent
// them.
package wire
