// Package broker is the brokers layer of kafkaclient: one long-lived, pipelined connection per
// broker address, and what a failed connection means. It knows nothing of offsets, topics or
// groups; it sends the requests it is given (franz-go's kmsg types, at the version negotiated for
// each API from wire.Speaks) and answers with the responses kmsg decodes, or an error that names
// the address and the cause. The handshake is kafka-go's (ApiVersions v0, its SASL mechanisms).
//
// Read it in this order:
//
//   - pool.go: Pool, at most one connection per address for the life of the client, dialled
//     when a request first needs it, shared by the reads that wait for the same dial, dialled
//     again at the next request once it failed;
//   - conn.go: Conn, one connection: requests written at once, answers matched in order by
//     one reader goroutine, every frame's size checked (package wire) before it is read and its
//     body decoded by kmsg, which checks every length (decode); a
//     connection fails for good on a broken read or write, or a request left unanswered past
//     its read's deadline;
//   - connect.go: a new connection's handshake: TCP, TLS, ApiVersions (the versions the
//     connection sends, Conn.Version), SASL;
//   - dialer.go: Dialer, TCP through the DialLog, then TLS; tls_diagnosis.go: what a failed TLS
//     handshake means;
//   - kafka_conn*.go: the watch on a connection's frames during the handshake, which turns a
//     refusal or a broken connection into a TLSError, SASLError or a "not Kafka" error;
//   - refusals.go: a request the broker closes the connection at, at once, on RefusedAfter new
//     connections in a row while it answers their handshakes (a *RefusedError, not an outage),
//     and ErrNotReached for the requests behind it, which the broker never began;
//   - dial_log.go, dial_problems.go: DialLog, how far the latest connection to each address
//     got and which addresses answered like Kafka (first contact or not), and that in words;
//     IsTimeout and IsConnectionLoss, what the retry policy asks of an error;
//   - not_kafka.go, tls_errors.go, sasl_errors.go, unsupported.go: the errors;
//   - observe.go: the Observer a read's context may carry, told of each dial (Pool.Get) and of
//     each request as it ends (Conn.Wait, or Send when the write fails): every request passes
//     there, so the provider's logs of a read miss none.
package broker
