package kafkaharness

import (
	"context"
	"testing"
	"time"
)

// The TLS listeners serve clients that verify the broker against the test CA
// (hostname 127.0.0.1 in the certificate); the mutual-TLS one also demands
// the client certificate, and refuses a client without one.
func TestTLSListenersServeClientsOfTestCA(t *testing.T) {
	t.Parallel()
	s := startSingle(t)
	for _, tc := range []struct {
		name     string
		addr     string
		withCert bool
		wantErr  bool
	}{
		{name: "SSL without client certificate", addr: s.SSLBootstrap()},
		{name: "MTLS with client certificate", addr: s.MTLSBootstrap(), withCert: true},
		{name: "MTLS without client certificate", addr: s.MTLSBootstrap(), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			m, err := tlsAdmin(t, s, tc.addr, tc.withCert).BrokerMetadata(ctx)
			if tc.wantErr {
				if err == nil {
					t.Fatal("metadata answered without a client certificate")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Brokers) != 1 {
				t.Errorf("%d brokers, want 1", len(m.Brokers))
			}
		})
	}
}
