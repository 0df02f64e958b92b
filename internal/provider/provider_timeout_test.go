package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{"1s": time.Second, "10s": 10 * time.Second, "1m30s": 90 * time.Second, "24h": 24 * time.Hour, "1.5s": 1500 * time.Millisecond} {
		t.Run(in, func(t *testing.T) {
			if got, err := parseTimeout(in); err != nil || got != want {
				t.Errorf("%q: got %s, %v; want %s", in, got, err, want)
			}
		})
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
		t.Run(fmt.Sprintf("refused %q", in), func(t *testing.T) {
			if _, err := parseTimeout(in); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%q: got %v, want an error containing %q", in, err, want)
			}
		})
	}
}
