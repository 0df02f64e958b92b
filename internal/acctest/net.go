package acctest

import (
	"net"
	"testing"
)

// ClosedPort returns a loopback address where nothing listens.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// SilentListener returns a loopback address that accepts TCP connections and never sends a byte,
// like a port behind a proxy whose backend is gone.
func SilentListener(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
			close(done)
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { _ = l.Close(); <-done })
	return l.Addr().String()
}

// RespondingListener returns a loopback address that answers every connection with payload and
// closes it: an HTTP server, or a TLS server's alert, where a Kafka broker was expected.
func RespondingListener(t testing.TB, payload []byte) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write(payload)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = l.Close(); <-done })
	return l.Addr().String()
}

// Payloads for RespondingListener.
var (
	HTTPResponse = []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	TLSAlert     = []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46} // fatal protocol_version alert
)
