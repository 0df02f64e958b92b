// Package wiretest builds Kafka response frames for the tests of kafkaclient and its wire
// package: franz-go kmsg's encoding of sample messages, frames of any bytes, and one round trip on
// a connection of its own.
package wiretest

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"reflect"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Decoded are the API keys whose responses the provider decodes from a broker: the handshake's
// (ApiVersions, SaslHandshake, SaslAuthenticate) and every API of wire.Speaks, sorted. The order
// is part of the fuzz corpora (an index picks the key): a new API goes at the end.
var Decoded = func() []int16 {
	keys := []int16{kmsg.ApiVersions.Int16(), kmsg.SASLHandshake.Int16(), kmsg.SASLAuthenticate.Int16()}
	var rest []int16
	for k := range wire.Speaks {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	return append(keys, rest...)
}()

// Versions are the versions of key the provider decodes: wire.Speaks' range, and the handshake's
// (ApiVersions v0, SASL v0-v1).
func Versions(key int16) []int16 {
	lo, hi := int16(0), int16(1)
	if key == kmsg.ApiVersions.Int16() {
		hi = 0
	}
	if s, ok := wire.Speaks[key]; ok {
		lo, hi = s.Min, s.Max
	}
	var out []int16
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

// Sample is a value of t with every field set and two entries in every array, so that an encoded
// sample exercises each field of each version.
func Sample(t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(7 + depth))
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", depth))
	case reflect.Slice:
		n := 2
		if depth > 3 {
			n = 0
		}
		v.Set(reflect.MakeSlice(t, n, n))
		for i := range n {
			v.Index(i).Set(Sample(t.Elem(), depth+1))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.PkgPath == "" && f.Name != "Version" {
				v.Field(i).Set(Sample(f.Type, depth+1))
			}
		}
	}
	return v
}

// Encoded is the frame, size prefix included, of a sample response of key at version v.
func Encoded(tb testing.TB, key, v int16) []byte {
	tb.Helper()
	res := kmsg.ResponseForKey(key)
	if res == nil {
		tb.Fatalf("kmsg has no response of API key %d", key)
	}
	sample, ok := Sample(reflect.TypeOf(res).Elem(), 0).Addr().Interface().(kmsg.Response)
	if !ok {
		tb.Fatalf("%T is not a kmsg.Response", res)
	}
	return EncodedMessage(tb, v, sample)
}

// EncodedMessage is res's frame as the answer of version v, size prefix included: correlation id
// 1, and the header's empty tagged-field section in flexible versions (never for ApiVersions).
func EncodedMessage(tb testing.TB, v int16, res kmsg.Response) []byte {
	tb.Helper()
	res.SetVersion(v)
	body := binary.BigEndian.AppendUint32(nil, 1)
	if res.IsFlexible() && res.Key() != kmsg.ApiVersions.Int16() {
		body = append(body, 0)
	}
	return FrameOf(res.AppendTo(body)...)
}

// FrameOf prefixes body with its size.
func FrameOf(body ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// RoundTrip sends req, its version set, on conn and decodes the answer with kmsg (a test's own
// connection to kfake or a broker; no handshake).
func RoundTrip(conn net.Conn, req kmsg.Request) (kmsg.Response, error) {
	if _, err := conn.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1)); err != nil {
		return nil, err
	}
	var head [4]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		return nil, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(head[:]))
	if _, err := io.ReadFull(conn, frame); err != nil {
		return nil, err
	}
	res := req.ResponseKind()
	res.SetVersion(req.GetVersion())
	body := frame[4:]
	if req.IsFlexible() && req.Key() != kmsg.ApiVersions.Int16() {
		body = body[1:] // no tagged fields from a test peer
	}
	return res, res.ReadFrom(body)
}
