package wire

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AnswerCodes says which error codes an answer holds, and how often: "NOT_LEADER_OR_FOLLOWER×2,
// UNKNOWN_TOPIC_OR_PARTITION×1", by code; "" when none. It reads every ErrorCode field of res,
// at every depth (the response's own, its topics', partitions', groups'...), by reflection: one
// walk for every API, for a TRACE line that says how a request ended without its payload.
func AnswerCodes(res kmsg.Response) string {
	if res == nil {
		return ""
	}
	counts := map[int16]int{}
	countCodes(reflect.ValueOf(res), counts)
	codes := make([]int16, 0, len(counts))
	for c := range counts {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		name, _ := ErrorName(kafka.Error(c))
		if strings.HasPrefix(name, "an error code unknown") {
			name = fmt.Sprintf("code %d", c)
		}
		parts[i] = fmt.Sprintf("%s×%d", name, counts[c])
	}
	return strings.Join(parts, ", ")
}

// countCodes adds the non-zero ErrorCode fields under v to counts. kmsg's messages are structs,
// slices of structs and pointers; maps hold only unknown tagged fields, which it skips.
func countCodes(v reflect.Value, counts map[int16]int) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			countCodes(v.Elem(), counts)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.Name == "ErrorCode" && f.Type.Kind() == reflect.Int16 {
				if c := v.Field(i).Int(); c != 0 {
					counts[int16(c)]++
				}
				continue
			}
			countCodes(v.Field(i), counts)
		}
	case reflect.Slice:
		if k := v.Type().Elem().Kind(); k != reflect.Struct && k != reflect.Pointer {
			return // bytes, strings, numbers: no codes
		}
		for i := range v.Len() {
			countCodes(v.Index(i), counts)
		}
	default:
	}
}
