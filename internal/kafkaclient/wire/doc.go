// Package wire is the bottom layer of kafkaclient: Kafka protocol messages where kafka-go's stop
// (listoffsets.go: ListOffsets v11, its special timestamps and the versions that answer them;
// listgroups.go: ListGroups v5; offsetfetch.go: OffsetFetch v9; fetch.go: Fetch v4-v11 with each
// partition's records left as bytes; registered with kafka-go's protocol package in place of its
// own; shareoffsets.go: DescribeShareGroupOffsets, API 90, past kafka-go's tables, encoded and
// decoded by own.go), the reading of Fetch's records (records.go: NextRecordAt, the record a
// consumer would be given next at an offset and its timestamp; records_compressed.go: what
// compressed records may claim before kafka-go's codecs allocate it), the checks of what a peer
// sends before kafka-go decodes it (frames.go: frame sizes and ApiVersions; response_shape.go:
// whole responses), and Kafka's names for error codes (errorcodes.go). It knows no connection and
// no address: a check says what is wrong with bytes, and the caller says who sent them.
package wire
