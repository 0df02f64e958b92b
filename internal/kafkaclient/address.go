package kafkaclient

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckBootstrapServer says what is wrong with one "host:port" bootstrap address, or nil.
// IPv6 hosts go in brackets ("[::1]:9092"), as in Kafka's own bootstrap.servers.
func CheckBootstrapServer(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty address: want host:port")
	case strings.Contains(s, ";"):
		return fmt.Errorf("%q holds several addresses joined by semicolons: give each one as its own list element "+
			"(in KAFKA_BOOTSTRAP_SERVERS, separate them with commas)", s)
	case strings.Contains(s, ","):
		return fmt.Errorf("%q holds several addresses joined by commas: give each one as its own list element, "+
			`e.g. ["broker-1:9092", "broker-2:9092"]`, s)
	case strings.Contains(s, "://"):
		return fmt.Errorf("%q has a listener or URL scheme: drop the %q prefix, want host:port", s, s[:strings.Index(s, "://")+3])
	case strings.IndexFunc(s, invisible) >= 0:
		return fmt.Errorf("%q contains white space or a control character: want host:port", s)
	case !utf8.ValidString(s):
		return fmt.Errorf("%q is not valid UTF-8: want host:port", s)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
			return fmt.Errorf("%q is not host:port: an IPv6 host goes in brackets, e.g. [::1]:9092", s)
		}
		return fmt.Errorf("%q is not host:port (e.g. broker-1:9092)", s)
	}
	if host == "" {
		return fmt.Errorf("%q has no host: want host:port", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strings.Trim(port, "0123456789") != "" || port[0] == '0' {
		return fmt.Errorf("%q has port %q: want a number from 1 to 65535", s, port)
	}
	return nil
}

// invisible: white space, control and other characters that no host name holds and that would
// show in an error as nothing or as a line break.
func invisible(r rune) bool { return unicode.IsSpace(r) || !unicode.IsGraphic(r) }
