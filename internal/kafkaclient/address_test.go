package kafkaclient

import (
	"strings"
	"testing"
)

func TestCheckBootstrapServer(t *testing.T) {
	for _, ok := range []string{"localhost:9092", "127.0.0.1:1", "[::1]:65535", "broker-1.example.com:9096"} {
		if err := CheckBootstrapServer(ok); err != nil {
			t.Errorf("%q: unexpected error %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"":                        "empty address",
		"a:9092,b:9092":           "several addresses joined by commas",
		"a:9092;b:9092":           "joined by semicolons",
		"localhost":               "is not host:port",
		":9092":                   "has no host",
		"localhost:0":             "from 1 to 65535",
		"localhost:65536":         "from 1 to 65535",
		"localhost:http":          "from 1 to 65535",
		"::1:9092":                "IPv6 host goes in brackets",
		"localhost :9092":         "white space",
		"PLAINTEXT://broker:9092": `drop the "PLAINTEXT://" prefix`,
	} {
		err := CheckBootstrapServer(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", in, err, want)
		}
	}
}
