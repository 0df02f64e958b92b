// Package kafkaclient reads offsets from Apache Kafka over its own connections: one per broker
// for the life of the Client, requests pipelined and coalesced. Its messages are franz-go's kmsg
// types (generated from Kafka's own definitions); kafka-go gives the handshake (ApiVersions, its
// SASL mechanisms and messages, AWS MSK IAM) and the compression codecs of record batches.
//
// It knows nothing about Terraform: plain Go values in, plain Go values and typed errors out. It
// only reads: Metadata requests that never allow topic auto-creation, ListOffsets, and the group
// reads (ListGroups; FindCoordinator only where __consumer_offsets exists; DescribeGroups;
// OffsetFetch; the describe APIs of Kafka 4's group kinds; DescribeShareGroupOffsets for share
// groups; Fetch for the next record's time). It never uses kafka-go's Conn/Dial* API, which can
// auto-create topics and loop until its context ends.
//
// # How a read flows
//
// The Client is a front: each of its reads goes to a room (offsetReads, timeLags, groupReads, producerReads),
// and every room stands on the clusterView. A partition read (Client.Offsets, offsetReads.read)
// goes down one layer at a time; its answers come back up.
//
//  1. clusterView.withRetries runs each attempt within the read's timeout, with fresh metadata
//     after a failure that stale metadata may explain.
//  2. The clusterView gives each partition's leader: a cached topicMetadata, or one Metadata
//     request shared by the reads of the topic that need it at once.
//  3. Each lookup the read asks (earliest, latest, by timestamp, ...) that a leader's connection
//     serves becomes a listing: all the coalescer needs to send that ListOffsets request and to
//     read its answer.
//  4. The coalescer adds the listings to each leader's pending round, which waits for the reads
//     that come at once and then leaves as one ListOffsets request per listing key on the
//     leader's broker.Conn; the round records every answer.
//  5. The read takes its answers from the rounds, sets them into PartitionOffsets by lookup,
//     and settles them against each other.
//
// No layer calls back into one above it: the coalescer knows listings, not lookups, and of the
// cluster view only a function that gives a broker's connection.
//
// # Reading the code
//
// Bottom-up; each layer uses only those below it.
//
//  1. Wire, package wire: the APIs and versions the provider sends (wire.Speaks), the reading of
//     record batches, the checks of a peer's bytes before anything decodes them (frame sizes, the
//     first answer), Kafka's names for error codes.
//  2. Brokers, package broker: one long-lived, pipelined connection per broker (dial, TLS,
//     ApiVersions, SASL; then kmsg requests, each answer decoded by kmsg, which checks every
//     length) and what a failed connection means, with its address. Its error types keep their
//     names here (errors_aliases.go).
//  3. Cluster view (clusterView, cluster.go: the connections, the Client's life and shared
//     goroutines): metadata.go (topics and leaders, cached until a read finds them stale),
//     holdings.go (what the cluster holds, Metadata for every topic and each broker's
//     DescribeLogDirs: one snapshot that the reads in flight share, looked up by name),
//     bootstrap.go (which bootstrap server to ask), retry.go (the one retry policy: what is
//     retried, backoff, first contact, addresses that waiting does not make right; whether the
//     cluster answered before is kept by the brokers layer, broker.DialLog.Reached),
//     request_errors.go (a request without an answer, as a typed error), answers.go (a round
//     trip's answer as its request's response type).
//  4. Reads, in four rooms. offsetReads: offsets.go and topics_offsets.go (partition and topic
//     offsets), lookups.go (each
//     ListOffsets lookup, described once, and what each leader is asked), coalesce.go (the coalescer:
//     concurrent reads share one ListOffsets per leader and lookup, their rounds waiting up to
//     20 ms for the reads that come at once; collect takes a read's answers from the rounds);
//     timeLags: next_record.go and time_lag.go (the next record after an offset, and a group's
//     time lag), fetch_batches.go (concurrent reads share one Fetch per leader and isolation
//     level, by natural batching: one out at a time, no waiting). groupReads: group_offsets.go
//     (one group's commits and lag), consumer_groups.go (every group), listgroups.go,
//     offsetfetch.go and assignments.go (the requests they share), share_groups.go (share
//     groups: their kinds, start offsets and lags), and the two every group read judges by:
//     verdict.go (a partition's state and the caught-up verdict, the one both group data
//     sources and the wait take), group_state.go (a group's state, by one rule for both) and
//     coverage.go (the topics a read without topics could not
//     see: DescribeLogDirs, then Metadata by name). producerReads: producers.go (a topic's
//     writers: DescribeProducers per leader, ListTransactions on every broker, DescribeTransactions,
//     the hanging rule).
//
// Beside the layers: vocabulary.go (the terms every read speaks: topicPartition,
// partitionLeader, how an error names partitions), client.go (Config, New, the Client front:
// Offsets, PartitionOffsets, TopicsOffsets, GroupOffsets, ConsumerGroups, TopicProducers, Timeout, Close),
// read_timeout.go (WithReadTimeout: a read's own timeout, carried by its context), errors.go
// (the typed errors of the reads),
// the configuration builders address.go, tls_config.go, sasl_config.go, oauthbearer.go and
// mskiam.go, and partitioner.go (PartitionForKey: Kafka's default partitioner, no request at all).
//
// What a read does on the wire, for the provider's logs: observe.go (Observer, which the
// provider gives a read through Client.Observe: each dial, each request with its API, version,
// broker, duration and error codes, and each retry of withRetries with its cause and backoff;
// the brokers layer tells it, broker/observe.go) and observe_shared.go (a request that reads
// share, a coalescer round, a Fetch batch, a topic's Metadata request, is told to each of them).
// A read without an Observer pays one context lookup per request.
package kafkaclient
