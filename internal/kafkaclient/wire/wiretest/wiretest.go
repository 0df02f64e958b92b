// Package wiretest builds Kafka response frames for the tests of kafkaclient and its wire
// package: kafka-go's own encoding of sample messages, and frames of any bytes.
package wiretest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/apiversions"
	"github.com/segmentio/kafka-go/protocol/describegroups"
	"github.com/segmentio/kafka-go/protocol/findcoordinator"
	"github.com/segmentio/kafka-go/protocol/metadata"
	"github.com/segmentio/kafka-go/protocol/saslauthenticate"
	"github.com/segmentio/kafka-go/protocol/saslhandshake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Walked are the response types the shape check is tested on: those it checks (wire.HasShape),
// and kafka-go's own that kafkaclient reads, which it could check the same way. The order is
// part of the fuzz corpora (an index picks the type): append only.
var Walked = []struct {
	Key  protocol.ApiKey
	Type reflect.Type
}{
	{protocol.ListOffsets, reflect.TypeFor[wire.ListOffsetsResponse]()},
	{protocol.ListGroups, reflect.TypeFor[wire.ListGroupsResponse]()},
	{protocol.SaslHandshake, reflect.TypeFor[saslhandshake.Response]()},
	{protocol.SaslAuthenticate, reflect.TypeFor[saslauthenticate.Response]()},
	{protocol.Metadata, reflect.TypeFor[metadata.Response]()},
	{protocol.FindCoordinator, reflect.TypeFor[findcoordinator.Response]()},
	{protocol.OffsetFetch, reflect.TypeFor[wire.OffsetFetchResponse]()},
	{protocol.DescribeGroups, reflect.TypeFor[describegroups.Response]()},
	{protocol.ApiVersions, reflect.TypeFor[apiversions.Response]()},
	{protocol.Fetch, reflect.TypeFor[wire.FetchResponse]()},
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
			if f := t.Field(i); f.PkgPath == "" {
				v.Field(i).Set(Sample(f.Type, depth+1))
			}
		}
	}
	return v
}

// Encoded is kafka-go's own encoding of a sample response of key and version v, size prefix
// included.
func Encoded(tb testing.TB, key protocol.ApiKey, typ reflect.Type, v int16) []byte {
	tb.Helper()
	msg, ok := Sample(typ, 0).Addr().Interface().(protocol.Message)
	if !ok {
		tb.Fatalf("%s is not a protocol.Message", typ)
	}
	var b bytes.Buffer
	if err := protocol.WriteResponse(&b, v, 42, msg); err != nil {
		tb.Fatalf("%s v%d: %v", key, v, err)
	}
	return b.Bytes()
}

// EncodedMessage is kafka-go's encoding of msg as a response of version v, size prefix included.
func EncodedMessage(tb testing.TB, v int16, msg protocol.Message) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := protocol.WriteResponse(&b, v, 1, msg); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// Versions are the versions of key that kafka-go's types describe.
func Versions(key protocol.ApiKey) []int16 {
	var out []int16
	for v := key.MinVersion(); v <= key.MaxVersion(); v++ {
		out = append(out, v)
	}
	return out
}

// FrameOf prefixes body with its size.
func FrameOf(body ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}
