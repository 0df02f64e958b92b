package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

func TestParseTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{"1s": time.Second, "10s": 10 * time.Second, "1m30s": 90 * time.Second, "24h": 24 * time.Hour, "1.5s": 1500 * time.Millisecond} {
		if got, err := parseTimeout(in); err != nil || got != want {
			t.Errorf("%q: got %s, %v; want %s", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"10":       "is not a Go duration",
		"soon":     "is not a Go duration",
		"":         "is not a Go duration",
		"0s":       "is not positive: want a duration from 1s to 24h0m0s",
		"-5s":      "is not positive",
		"1ns":      "shorter than 1s",
		"999ms":    "shorter than 1s",
		"25h":      "longer than 24h0m0s",
		"3000000h": "is not a Go duration", // too large for Go: time.ParseDuration refuses it, as timetypes.GoDuration does
	} {
		if _, err := parseTimeout(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", in, err, want)
		}
	}
}

func TestTimestampMsRoundsUp(t *testing.T) {
	for in, want := range map[string]int64{
		"1970-01-01T00:00:00Z":         0,
		"2026-11-01T12:00:05Z":         1793534405000,
		"2026-11-01T12:00:05.0005Z":    1793534405001, // finer than a millisecond: the next one
		"2026-11-01T13:00:05.25+01:00": 1793534405250,
	} {
		var diags diag.Diagnostics
		got := timestampMs(timetypes.NewRFC3339ValueMust(in), path.Root("timestamp"), &diags)
		if diags.HasError() || got == nil || *got != want {
			t.Errorf("%s: got %v, %v; want %d", in, got, diags, want)
		}
	}
}

func TestSumOffsetsRefusesOverflow(t *testing.T) {
	var diags diag.Diagnostics
	if got := sumOffsets(1<<62, 1<<62-1, "message_count", &diags); got != 1<<63-1 || diags.HasError() {
		t.Fatalf("got %d, %v", got, diags)
	}
	sumOffsets(1<<63-1, 1, "message_count", &diags)
	if !diags.HasError() {
		t.Fatal("a sum past 2^63-1 gave no error")
	}
}
