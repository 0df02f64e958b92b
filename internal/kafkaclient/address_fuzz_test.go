package kafkaclient

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// FuzzCheckBootstrapServer: CheckBootstrapServer accepts exactly what net.SplitHostPort splits
// into a host and a port from 1 to 65535 in plain decimal, and nothing with a comma or a semicolon
// (address list separators), a scheme,
// white space or control characters; its errors quote the input, so they hold no raw control
// character.
func FuzzCheckBootstrapServer(f *testing.F) {
	for _, s := range []string{
		"localhost:9092", "127.0.0.1:1", "[::1]:65535", "broker-1.example.com:9096", "[fe80::1%eth0]:9092",
		"", "a:9092,b:9092", "localhost", ":9092", "localhost:0", "localhost:65536", "localhost:http", "::1:9092",
		"localhost :9092", "a:1;b:2", ";:1", "PLAINTEXT://broker:9092", "broker:09092", "broker:+9092", "[::1]9092", "[]:9092",
		"broker\x00:9092", "broker\v:9092", "bro\u00a0ker:9092", "\xff:9092", "broker:99999999999999999999", "[[::1]]:1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckBootstrapServer(s)
		if want := validBootstrapServer(s); (err == nil) != want {
			t.Fatalf("CheckBootstrapServer(%q) = %v; an independent check says valid = %v", s, err, want)
		}
		if err != nil {
			if r := acctest.ControlRune(err.Error()); r >= 0 {
				t.Fatalf("error for %q holds the control character %U: %q", s, r, err.Error())
			}
		}
	})
}

// validBootstrapServer is what a bootstrap address must be: host:port as net.SplitHostPort reads
// it, a host, a port 1-65535 written in plain decimal, and only visible characters.
func validBootstrapServer(s string) bool {
	host, port, err := net.SplitHostPort(s)
	if err != nil || !utf8.ValidString(s) || host == "" || strings.ContainsAny(s, ",;") || strings.Contains(s, "://") {
		return false
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
