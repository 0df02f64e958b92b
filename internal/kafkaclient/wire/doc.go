// Package wire is the bottom layer of kafkaclient: Kafka protocol messages where kafka-go's stop
// (listoffsets.go: ListOffsets v11, its special timestamps and the versions that answer them;
// listgroups.go: ListGroups v5; offsetfetch.go: OffsetFetch v9; registered with kafka-go's
// protocol package in place of its own), the checks of what a peer sends before kafka-go decodes it (frames.go: frame
// sizes and ApiVersions; response_shape.go: whole responses), and Kafka's names for error codes
// (errorcodes.go). It knows no connection and no address: a check says what is wrong with bytes,
// and the caller says who sent them.
package wire
