package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/describegroups"
	"github.com/segmentio/kafka-go/protocol/saslauthenticate"
	"github.com/segmentio/kafka-go/protocol/saslhandshake"
)

// kafka-go's decoder trusts the lengths it reads (see frames.go): an array count is allocated
// before it is checked against the bytes left (a 12-byte ListOffsets response that claims 2^31
// topics asks for 80 GiB), a compact (flexible-version) length of 2^63 or more panics in
// make, and a tagged-field count of 2^62 loops for ever. CheckShape walks a whole response frame
// the way kafka-go's decoder will, driven by the same `kafka:"..."` struct tags, and refuses it
// when any count or length claims more than the bytes left, or a varint does not end. A frame
// that passes decodes in kafka-go with allocations of at most a small multiple of its size.
//
// It runs on the responses whose types this package registers or kafkaclient decodes itself
// (shapes): kafkaclient's connection captures them whole and checks them before kafka-go reads a
// byte. kafka-go's own
// response types could be added to shapes the same way (the fuzz tests check the walker on
// them too); frames.go explains why they are not defended yet.
var shapes = map[protocol.ApiKey]reflect.Type{
	protocol.ListOffsets:      reflect.TypeFor[ListOffsetsResponse](),     // listoffsets.go
	protocol.ListGroups:       reflect.TypeFor[ListGroupsResponse](),      // listgroups.go
	protocol.OffsetFetch:      reflect.TypeFor[OffsetFetchResponse](),     // offsetfetch.go
	protocol.Fetch:            reflect.TypeFor[FetchResponse](),           // fetch.go
	protocol.DescribeGroups:   reflect.TypeFor[describegroups.Response](), // members' assignments: groupdescribe.go
	protocol.SaslHandshake:    reflect.TypeFor[saslhandshake.Response](),
	protocol.SaslAuthenticate: reflect.TypeFor[saslauthenticate.Response](),
}

// HasShape reports whether responses to key are captured and checked by CheckShape.
func HasShape(key protocol.ApiKey) bool {
	_, ok := shapes[key]
	return ok
}

// CheckShape checks a whole response frame (size prefix included) to a request of key and
// version v; "" when kafka-go may decode it, else what is wrong with it.
func CheckShape(key protocol.ApiKey, v int16, frame []byte) string {
	t, ok := shapes[key]
	if !ok {
		return ""
	}
	return checkShapeOf(t, v, frame)
}

func checkShapeOf(t reflect.Type, v int16, frame []byte) string {
	if len(frame) < 8 {
		return fmt.Sprintf("a frame of %d bytes, too short for a Kafka response", len(frame))
	}
	size := int64(int32(binary.BigEndian.Uint32(frame)))
	if size < 4 || size > int64(len(frame)-4) {
		return fmt.Sprintf("a frame whose size prefix says %d bytes where %d follow", size, len(frame)-4)
	}
	w := &shapeWalker{rest: frame[8 : 4+size]} // after the size and the correlation id
	flexible := isFlexible(t, v)
	if flexible {
		w.field = "response header tagged fields"
		w.taggedFields(nil)
	}
	w.value(shapeOf(t, v), flexible)
	return w.problem
}

// isFlexible mirrors kafka-go's makeTypes: a message is "flexible" (compact lengths, tagged
// fields) from the lowest version of any top-level field marked "tag".
func isFlexible(t reflect.Type, v int16) bool {
	minFlexible := int16(-1)
	for i := range t.NumField() {
		for _, alt := range kafkaTags(t.Field(i)) {
			if alt.tagID > -2 && (minFlexible < 0 || alt.min < minFlexible) {
				minFlexible = alt.min
			}
		}
	}
	return minFlexible >= 0 && v >= minFlexible
}

// shapeWalker consumes rest as kafka-go's decoder would; problem is set at the first claim that
// cannot hold, after which nothing more is read.
type shapeWalker struct {
	rest    []byte
	field   string // the field being read, for the problem's wording
	problem string
}

func (w *shapeWalker) fail(format string, args ...any) {
	if w.problem == "" {
		w.problem = fmt.Sprintf(format, args...)
		if w.field != "" {
			w.problem = "field " + w.field + ": " + w.problem
		}
	}
	w.rest = nil
}

func (w *shapeWalker) take(n uint64, what string) {
	if w.problem != "" {
		return
	}
	if n > uint64(len(w.rest)) {
		w.fail("%s of %d bytes where %d are left", what, n, len(w.rest))
		return
	}
	w.rest = w.rest[n:]
}

func (w *shapeWalker) fixed(n int, what string) uint64 {
	if w.problem != "" || len(w.rest) < n {
		w.fail("a response that ends inside %s", what)
		return 0
	}
	var x uint64
	for _, b := range w.rest[:n] {
		x = x<<8 | uint64(b)
	}
	w.rest = w.rest[n:]
	return x
}

func (w *shapeWalker) uvarint(what string) uint64 {
	if w.problem != "" {
		return 0
	}
	x, n := binary.Uvarint(w.rest)
	if n <= 0 {
		w.fail("a varint (%s) that does not end", what)
		return 0
	}
	w.rest = w.rest[n:]
	return x
}

// length reads a string, bytes or array length: compact (unsigned varint, length+1, 0 for null)
// in flexible versions, else a signed int16 (strings) or int32. null is false for a null or
// negative length, which kafka-go reads as empty.
func (w *shapeWalker) length(flexible bool, width int, what string) (n uint64, null bool) {
	if flexible {
		n = w.uvarint(what + " length")
		if n == 0 {
			return 0, true
		}
		return n - 1, false
	}
	x := w.fixed(width, what+" length")
	if width == 2 {
		if int16(x) < 0 {
			return 0, true
		}
		return uint64(int16(x)), false
	}
	if int32(x) < 0 {
		return 0, true
	}
	return uint64(int32(x)), false
}

// shape is what values of one type hold on the wire in one version, made once per type and
// version (shapeOf): a response holds a million values of a few types, and asking reflection of
// each one cost as much as kafka-go's decoding.
type shape struct {
	kind      shapeKind
	name      string // the type, for a problem's wording
	size      int    // fixedSize: its bytes; uuid: its length
	elem      *shape // array and nullable: the element
	fields    []shapeField
	tagged    map[uint64]*shape // struct: its tagged fields in flexible versions
	tagsLabel string            // names the tagged-field section in a problem
}

type shapeKind int8

const (
	unfollowable shapeKind = iota // a type that reads itself, or none kafka-go decodes
	fixedSize
	stringShape
	bytesShape
	arrayShape
	structShape
	nullableShape // a nullable struct (own.go's types only): -1 for null, else the struct
	uuidShape     // [16]byte
)

type shapeField struct {
	name  string
	shape *shape
}

var shapeCache sync.Map // planKey -> *shape

// shapeOf is t's shape in version v.
func shapeOf(t reflect.Type, v int16) *shape {
	if s, ok := shapeCache.Load(planKey{t, v}); ok {
		return s.(*shape) //nolint:forcetypeassert // only *shape is stored
	}
	s := makeShape(t, v, map[reflect.Type]*shape{})
	shapeCache.Store(planKey{t, v}, s)
	return s
}

// makeShape builds t's shape; made holds the shapes begun, so that a type that contains itself
// ends.
func makeShape(t reflect.Type, v int16, made map[reflect.Type]*shape) *shape {
	if s := made[t]; s != nil {
		return s
	}
	s := &shape{name: t.String()}
	made[t] = s
	if readsItself(t) {
		return s // no response in shapes has one
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int8:
		s.kind, s.size = fixedSize, 1
	case reflect.Int16:
		s.kind, s.size = fixedSize, 2
	case reflect.Int32:
		s.kind, s.size = fixedSize, 4
	case reflect.Int64, reflect.Float64:
		s.kind, s.size = fixedSize, 8
	case reflect.String:
		s.kind = stringShape
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s.kind = bytesShape
			break
		}
		s.kind, s.elem = arrayShape, makeShape(t.Elem(), v, made)
	case reflect.Struct:
		p := planOf(t, v)
		s.kind, s.tagsLabel, s.tagged = structShape, p.tagsLabel, map[uint64]*shape{}
		for _, f := range p.fields {
			s.fields = append(s.fields, shapeField{f.Name, makeShape(f.Type, v, made)})
		}
		for tag, ft := range p.tagged {
			s.tagged[tag] = makeShape(ft, v, made)
		}
	case reflect.Pointer:
		s.kind, s.elem = nullableShape, makeShape(t.Elem(), v, made)
	case reflect.Array:
		s.kind, s.size = uuidShape, t.Len()
	}
	return s
}

func (w *shapeWalker) value(s *shape, flexible bool) {
	if w.problem != "" {
		return
	}
	switch s.kind {
	case fixedSize:
		w.fixed(s.size, s.name)
	case stringShape:
		if n, null := w.length(flexible, 2, "a string"); !null {
			w.take(n, "a string")
		}
	case bytesShape:
		if n, null := w.length(flexible, 4, "a byte array"); !null {
			w.take(n, "a byte array")
		}
	case arrayShape:
		w.array(s, flexible)
	case structShape:
		w.structure(s, flexible)
	case nullableShape:
		if int8(w.fixed(1, "a nullable struct's marker")) >= 0 {
			w.value(s.elem, flexible)
		}
	case uuidShape:
		w.take(uint64(s.size), s.name)
	default:
		w.fail("a %s, which this check cannot follow", s.name)
	}
}

// array checks the count before each element: an element takes at least one byte, so a count
// above the bytes left is a lie, and kafka-go would allocate it whole.
func (w *shapeWalker) array(s *shape, flexible bool) {
	n, null := w.length(flexible, 4, "an array")
	if null || w.problem != "" {
		return
	}
	if n > uint64(len(w.rest)) {
		w.fail("an array that claims %d entries in %d bytes", n, len(w.rest))
		return
	}
	for i := uint64(0); i < n && w.problem == ""; i++ {
		w.value(s.elem, flexible)
	}
}

func (w *shapeWalker) structure(s *shape, flexible bool) {
	for _, f := range s.fields {
		w.field = f.name
		w.value(f.shape, flexible)
	}
	if flexible {
		w.field = s.tagsLabel
		w.taggedFields(s.tagged)
	}
}

// structPlan is what a struct type holds on the wire in one version: its fields in order, and
// those sent as tagged fields in flexible versions. Made once per type and version.
type structPlan struct {
	fields    []reflect.StructField
	tagged    map[uint64]reflect.Type
	tagsLabel string // names the tagged-field section in a problem
}

type planKey struct {
	t reflect.Type
	v int16
}

var plans sync.Map // planKey -> *structPlan

func planOf(t reflect.Type, v int16) *structPlan {
	if p, ok := plans.Load(planKey{t, v}); ok {
		return p.(*structPlan) //nolint:forcetypeassert // only *structPlan is stored
	}
	p := &structPlan{tagged: map[uint64]reflect.Type{}, tagsLabel: t.Name() + " tagged fields"}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.PkgPath != "" && f.Name != "_" {
			continue // unexported: not on the wire
		}
		for _, alt := range kafkaTags(f) {
			if alt.min > v || v > alt.max {
				continue
			}
			if alt.tagID < -1 {
				p.fields = append(p.fields, f)
			} else if alt.tagID >= 0 {
				p.tagged[uint64(alt.tagID)] = f.Type
			}
			break
		}
	}
	plans.Store(planKey{t, v}, p)
	return p
}

// readsItself reports whether kafka-go lets values of t decode themselves (io.ReaderFrom).
func readsItself(t reflect.Type) bool {
	if r, ok := readers.Load(t); ok {
		return r.(bool) //nolint:forcetypeassert // only bools are stored
	}
	r := reflect.PointerTo(t).Implements(reflect.TypeFor[io.ReaderFrom]())
	readers.Store(t, r)
	return r
}

var readers sync.Map // reflect.Type -> bool

// taggedFields reads a tagged-field section (KIP-482): a count, then per field a tag and a size.
// kafka-go decodes a known tag as its field (whatever the size says) and reads the others'
// bytes. Tags are int32 in Kafka: a larger one is refused rather than followed.
func (w *shapeWalker) taggedFields(known map[uint64]*shape) {
	n := w.uvarint("tagged field count")
	if w.problem != "" {
		return
	}
	if n > uint64(len(w.rest))/2 { // a tag and a size take a byte each at least
		w.fail("a tagged-field section that claims %d fields in %d bytes", n, len(w.rest))
		return
	}
	for i := uint64(0); i < n && w.problem == ""; i++ {
		tag := w.uvarint("tag")
		size := w.uvarint("tagged field size")
		switch t, ok := known[tag]; {
		case w.problem != "":
		case tag > math.MaxInt32:
			w.fail("a tagged field with tag %d, beyond Kafka's int32 tags", tag)
		case ok:
			w.value(t, true)
		default:
			w.take(size, "a tagged field")
		}
	}
}

// kafkaTag is one alternative of a `kafka:"min=v0,max=v4|min=v5,max=v5,compact"` struct tag, as
// kafka-go's forEachStructTag reads it: tagID -2 is an ordinary field, -1 marks the message as
// flexible, 0 and above are tagged fields.
type kafkaTag struct {
	min, max int16
	tagID    int
	nullable bool
}

func kafkaTags(f reflect.StructField) []kafkaTag {
	raw, ok := f.Tag.Lookup("kafka")
	if !ok || raw == "-" {
		return nil
	}
	var out []kafkaTag
	for _, alt := range strings.Split(raw, "|") {
		tag := kafkaTag{min: -1, max: -1, tagID: -2}
		for _, opt := range strings.Split(alt, ",") {
			switch {
			case strings.HasPrefix(opt, "min=v"):
				n, _ := strconv.ParseInt(opt[5:], 10, 16)
				tag.min = int16(n)
			case strings.HasPrefix(opt, "max=v"):
				n, _ := strconv.ParseInt(opt[5:], 10, 16)
				tag.max = int16(n)
			case opt == "tag":
				tag.tagID = -1
			case opt == "nullable":
				tag.nullable = true
			case strings.HasPrefix(opt, "tag="):
				tag.tagID, _ = strconv.Atoi(opt[4:])
			}
		}
		out = append(out, tag)
	}
	return out
}

// RoundTripChecked sends req (version v) on a connection of its own (kafkaclient's probe of a
// listener) and reads its response whole (at most MaxFirstFrame bytes), checking its shape before
// kafka-go decodes it.
func RoundTripChecked(rw io.ReadWriter, clientID string, v int16, req protocol.Message) (protocol.Message, error) {
	if err := protocol.WriteRequest(rw, v, 1, clientID, req); err != nil {
		return nil, err
	}
	var head [4]byte
	if _, err := io.ReadFull(rw, head[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(head[:]))
	if size < 4 || size > MaxFirstFrame {
		return nil, fmt.Errorf("a %s response frame of %d bytes", req.ApiKey(), size)
	}
	frame := make([]byte, 4+int(size))
	copy(frame, head[:])
	if _, err := io.ReadFull(rw, frame[4:]); err != nil {
		return nil, err
	}
	if problem := CheckShape(req.ApiKey(), v, frame); problem != "" {
		return nil, errors.New(problem)
	}
	_, msg, err := protocol.ReadResponse(bytes.NewReader(frame), req.ApiKey(), v)
	return msg, err
}
