package acctest

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
)

// ClosedPort returns a loopback address where nothing listens.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l := Listen(t)
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// Listen opens a TCP listener on a free loopback port.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Serve accepts connections on l until the test ends, handing each to handle in turn, and returns
// l's address. Connections still open at the end are closed with l.
func Serve(t testing.TB, l net.Listener, handle func(net.Conn)) string {
	t.Helper()
	var (
		mu    sync.Mutex
		conns []net.Conn
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			handle(c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

// SilentListener returns a loopback address that accepts TCP connections and never sends a byte,
// like a port behind a proxy whose backend is gone.
func SilentListener(t testing.TB) string {
	t.Helper()
	return Serve(t, Listen(t), func(net.Conn) {})
}

// RespondingListener returns a loopback address that answers every connection with payload and
// closes it: an HTTP server, or a TLS server's alert, where a Kafka broker was expected.
func RespondingListener(t testing.TB, payload []byte) string {
	t.Helper()
	return Serve(t, Listen(t), func(c net.Conn) {
		_, _ = c.Write(payload)
		_ = c.Close()
	})
}

// Payloads for RespondingListener.
var (
	HTTPResponse = []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	TLSAlert     = []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46} // fatal protocol_version alert
)

// UnresolvableHost returns name (a host under .invalid, the top-level domain RFC 6761 reserves
// never to resolve) once this machine's resolver has said "no such host" for it. Where it says
// anything else (no resolver reachable: every lookup fails for the moment, which the provider
// rightly retries), the test is skipped, saying so.
func UnresolvableHost(t testing.TB, name string) string {
	t.Helper()
	if !strings.HasSuffix(name, ".invalid") {
		t.Fatalf("UnresolvableHost(%q): the name must end in .invalid", name)
	}
	_, err := net.DefaultResolver.LookupHost(context.Background(), name)
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound || dnsErr.IsTemporary || dnsErr.IsTimeout {
		t.Skipf("this machine's resolver does not answer \"no such host\" for %s: %v", name, err)
	}
	return name
}
