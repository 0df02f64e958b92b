package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"

	"github.com/segmentio/kafka-go/protocol"
)

// kafka-go's protocol package holds APIs 0 to 51 in fixed-size tables: a message of a later API
// (DescribeShareGroupOffsets is 90) can be neither registered nor encoded there. The messages
// registered here are encoded and decoded by this file instead, driven by the same
// `kafka:"..."` struct tags, for flexible versions only (every API past 51 is flexible from its
// first version): compact strings and arrays, tagged-field sections (none sent; those received
// are skipped). The response frame has passed CheckShape before it is decoded.

// ownAPI is the versions this package speaks of an API, and its message types.
type ownAPI struct {
	min, max int16
	request  reflect.Type
	response reflect.Type
}

var own = map[protocol.ApiKey]ownAPI{}

// registerOwn registers an API this package speaks from v0 (every API past 51 is flexible from
// v0 on) to hi.
func registerOwn(key protocol.ApiKey, hi int16, req, res protocol.Message) {
	own[key] = ownAPI{min: 0, max: hi, request: reflect.TypeOf(req).Elem(), response: reflect.TypeOf(res).Elem()}
	shapes[key] = reflect.TypeOf(res).Elem()
}

// OwnVersions is the version range this package encodes of key; ok is false for the APIs that
// kafka-go encodes.
func OwnVersions(key protocol.ApiKey) (lo, hi int16, ok bool) {
	a, ok := own[key]
	return a.min, a.max, ok
}

// AppendOwnRequest appends msg's request frame (size prefix, header v2, body) of version v.
func AppendOwnRequest(b []byte, v int16, correlationID int32, clientID string, msg protocol.Message) ([]byte, error) {
	a, ok := own[msg.ApiKey()]
	if !ok || v < a.min || v > a.max || reflect.TypeOf(msg) != reflect.PointerTo(a.request) {
		return nil, fmt.Errorf("%T v%d is not a request this package encodes", msg, v)
	}
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // the size, set below
	b = binary.BigEndian.AppendUint16(b, uint16(msg.ApiKey()))
	b = binary.BigEndian.AppendUint16(b, uint16(v))
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID))) // header v2: client id is a plain string
	b = append(b, clientID...)
	b = append(b, 0) // no tagged fields
	b = encodeValue(b, reflect.ValueOf(msg).Elem(), v, false)
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b, nil
}

func encodeValue(b []byte, x reflect.Value, v int16, nullable bool) []byte {
	switch x.Kind() {
	case reflect.Bool:
		if x.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int8:
		return append(b, byte(x.Int()))
	case reflect.Int16:
		return binary.BigEndian.AppendUint16(b, uint16(x.Int()))
	case reflect.Int32:
		return binary.BigEndian.AppendUint32(b, uint32(x.Int()))
	case reflect.Int64:
		return binary.BigEndian.AppendUint64(b, uint64(x.Int()))
	case reflect.String:
		if nullable && x.Len() == 0 {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(x.Len())+1)
		return append(b, x.String()...)
	case reflect.Array: // uuid
		for i := range x.Len() {
			b = append(b, byte(x.Index(i).Uint()))
		}
		return b
	case reflect.Slice:
		if nullable && x.IsNil() {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(x.Len())+1)
		for i := range x.Len() {
			b = encodeValue(b, x.Index(i), v, false)
		}
		return b
	case reflect.Struct:
		t := x.Type()
		for _, f := range planOf(t, v).fields {
			b = encodeValue(b, x.FieldByIndex(f.Index), v, isNullable(f, v))
		}
		return append(b, 0) // no tagged fields
	}
	panic(fmt.Sprintf("wire: cannot encode a %s", x.Type())) // a type of this package: a bug, found by its tests
}

// DecodeOwnResponse decodes a whole response frame (size prefix included) of key and version v.
func DecodeOwnResponse(key protocol.ApiKey, v int16, frame []byte) (protocol.Message, error) {
	a, ok := own[key]
	if !ok {
		return nil, fmt.Errorf("%s is not an API this package decodes", key)
	}
	d := &decoder{rest: frame[8:]} // after the size and the correlation id
	d.skipTags()
	msg := reflect.New(a.response)
	d.value(msg.Elem(), v)
	if d.err != nil {
		return nil, fmt.Errorf("decoding %s v%d: %w", key, v, d.err)
	}
	m, _ := msg.Interface().(protocol.Message)
	return m, nil
}

var errShort = errors.New("the response ends early")

// decoder reads flexible-version values; the first problem stops it.
type decoder struct {
	rest []byte
	err  error
}

func (d *decoder) take(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.rest)) {
		d.err = errShort
		return nil
	}
	p := d.rest[:n]
	d.rest = d.rest[n:]
	return p
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.rest)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.rest = d.rest[n:]
	return x
}

func (d *decoder) int(n int) int64 {
	p := d.take(uint64(n))
	var x uint64
	for _, c := range p {
		x = x<<8 | uint64(c)
	}
	switch n {
	case 1:
		return int64(int8(x))
	case 2:
		return int64(int16(x))
	case 4:
		return int64(int32(x))
	}
	return int64(x)
}

// skipTags reads past a tagged-field section: this package reads no tagged field.
func (d *decoder) skipTags() {
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		d.uvarint() // tag
		d.take(d.uvarint())
	}
}

func (d *decoder) value(x reflect.Value, v int16) {
	if d.err != nil {
		return
	}
	switch x.Kind() {
	case reflect.Bool:
		x.SetBool(d.int(1) != 0)
	case reflect.Int8:
		x.SetInt(d.int(1))
	case reflect.Int16:
		x.SetInt(d.int(2))
	case reflect.Int32:
		x.SetInt(d.int(4))
	case reflect.Int64:
		x.SetInt(d.int(8))
	case reflect.String:
		if n := d.uvarint(); n > 0 {
			x.SetString(string(d.take(n - 1)))
		}
	case reflect.Array:
		reflect.Copy(x, reflect.ValueOf(d.take(uint64(x.Len()))))
	case reflect.Slice:
		n := d.uvarint()
		if n == 0 || d.err != nil {
			return
		}
		if n-1 > uint64(len(d.rest)) { // an element takes a byte at least
			d.err = errShort
			return
		}
		x.Set(reflect.MakeSlice(x.Type(), int(n-1), int(n-1)))
		for i := range int(n - 1) {
			d.value(x.Index(i), v)
		}
	case reflect.Struct:
		for _, f := range planOf(x.Type(), v).fields {
			d.value(x.FieldByIndex(f.Index), v)
		}
		d.skipTags()
	case reflect.Pointer: // a nullable struct: -1 for null, 1 before the struct
		if d.int(1) < 0 || d.err != nil {
			return
		}
		x.Set(reflect.New(x.Type().Elem()))
		d.value(x.Elem(), v)
	default:
		d.err = fmt.Errorf("a %s, which this package does not decode", x.Type())
	}
}

// isNullable reports whether f is nullable in version v (kafka-go's "nullable" tag option).
func isNullable(f reflect.StructField, v int16) bool {
	for _, alt := range kafkaTags(f) {
		if alt.min <= v && v <= alt.max {
			return alt.nullable
		}
	}
	return false
}
