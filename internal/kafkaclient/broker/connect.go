package broker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/apiversions"
	"github.com/segmentio/kafka-go/protocol/saslauthenticate"
	"github.com/segmentio/kafka-go/protocol/saslhandshake"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// connect opens one broker connection: TCP (through the DialLog), TLS when configured
// (dialer.go), ApiVersions (checked in full before kafka-go decodes it, wire.CheckApiVersions), then SASL
// (kafka-go's mechanisms and messages) when configured: one TLS handshake and one login per connection, for the life of the Client.
// The frames of the handshake pass through kafkaConn (kafka_conn.go), which turns a refusal into
// an error that names the broker and the cause. The whole connect is bounded by ctx and by
// dialTimeout.
func (b *Pool) connect(ctx context.Context, address string) (*Conn, error) {
	deadline := handshakeDeadline(ctx, b.dialTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	conn, err := b.dialer.Dial(ctx, "tcp", address)
	if err != nil {
		return nil, err
	}
	kc, ok := conn.(*kafkaConn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("%s: the dialer returned %T, not a watched connection", address, conn)
	}
	stop := context.AfterFunc(ctx, func() { _ = kc.Close() }) // a cancelled read ends its connect
	defer stop()
	_ = kc.SetDeadline(deadline)
	clientID := b.dialer.clientID
	bc := &Conn{address: address, kc: kc, pc: protocol.NewConn(kc, clientID),
		format: kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)), serial: b.dials.Add(1), refusals: b.refusals}
	if err := bc.handshake(ctx, b.dialer.sasl); err != nil {
		_ = kc.Close()
		if ctx.Err() != nil && !errors.As(err, new(*SASLError)) && !errors.As(err, new(*TLSError)) {
			return nil, fmt.Errorf("%s: %w (%w)", address, ctx.Err(), err)
		}
		return nil, err
	}
	if !stop() { // ctx ended as the handshake did: the connection is closed
		return nil, fmt.Errorf("%s: %w", address, ctx.Err())
	}
	_ = kc.SetDeadline(noDeadline)
	kc.pipelined = true
	bc.start()
	return bc, nil
}

// handshake negotiates versions (ApiVersions v0, which every broker answers) and logs in.
func (bc *Conn) handshake(ctx context.Context, mechanism sasl.Mechanism) error {
	bc.pc.SetVersions(map[protocol.ApiKey]int16{protocol.ApiVersions: 0})
	m, err := bc.pc.RoundTrip(&apiversions.Request{})
	if err != nil {
		return err
	}
	res, ok := m.(*apiversions.Response)
	if !ok {
		return fmt.Errorf("%s: ApiVersions: unexpected answer %T", bc.address, m)
	}
	if res.ErrorCode != 0 {
		return fmt.Errorf("%s: ApiVersions: %w", bc.address, kafka.Error(res.ErrorCode))
	}
	bc.versions = make(map[int16]int16, len(res.ApiKeys))
	login := map[protocol.ApiKey]int16{}
	for _, k := range res.ApiKeys {
		if speaks, ok := wire.Speaks[k.ApiKey]; ok && k.MaxVersion >= speaks.Min && k.MinVersion <= speaks.Max {
			bc.versions[k.ApiKey] = min(speaks.Max, k.MaxVersion)
		}
		if key := protocol.ApiKey(k.ApiKey); key == protocol.SaslHandshake || key == protocol.SaslAuthenticate {
			login[key] = key.SelectVersion(k.MinVersion, k.MaxVersion) // the login is kafka-go's
		}
	}
	bc.pc.SetVersions(login)
	if mechanism == nil {
		return nil
	}
	host, port, _ := net.SplitHostPort(bc.address)
	portNum, _ := strconv.Atoi(port)
	return bc.login(sasl.WithMetadata(ctx, &sasl.Metadata{Host: host, Port: portNum}), mechanism)
}

// login drives mechanism over SaslHandshake and SaslAuthenticate, as kafka-go's Transport does.
// Refusals come back from kafkaConn as *SASLError.
func (bc *Conn) login(ctx context.Context, mechanism sasl.Mechanism) error {
	m, err := bc.pc.RoundTrip(&saslhandshake.Request{Mechanism: mechanism.Name()})
	if err != nil {
		return err
	}
	hs, ok := m.(*saslhandshake.Response)
	if !ok {
		return fmt.Errorf("%s: SaslHandshake: unexpected answer %T", bc.address, m)
	}
	if hs.ErrorCode != 0 { // kafkaConn turns the refusals it knows into a *SASLError first
		return fmt.Errorf("%s: SaslHandshake: %w", bc.address, kafka.Error(hs.ErrorCode))
	}
	sess, state, err := mechanism.Start(ctx)
	if err != nil {
		return err
	}
	for done := false; !done; {
		m, err := bc.pc.RoundTrip(&saslauthenticate.Request{AuthBytes: state})
		if err != nil {
			return err
		}
		res, ok := m.(*saslauthenticate.Response)
		if !ok {
			return fmt.Errorf("%s: SaslAuthenticate: unexpected answer %T", bc.address, m)
		}
		if done, state, err = sess.Next(ctx, res.AuthBytes); err != nil {
			return err
		}
	}
	return nil
}
