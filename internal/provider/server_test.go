package provider

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// A request's context (and what it carries: loggers, fields, gRPC metadata) is garbage once the
// request is answered. terraform-plugin-framework v1.19.0 alone keeps it until StopProvider; the
// provider's Server gives it back. The first case shows the framework's behaviour, so that this
// test says when a framework release no longer needs the wrapper.
func TestServerKeepsNoRequestContext(t *testing.T) {
	for _, tc := range []struct {
		name     string
		server   func() tfprotov6.ProviderServer
		wantKept bool
	}{
		{name: "the framework alone", server: providerserver.NewProtocol6(New("test")()), wantKept: true},
		{name: "the provider's Server", server: Server("test"), wantKept: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.server()
			kept := make([]weak.Pointer[[64 << 10]byte], 0, 3)
			for _, call := range []func(context.Context){
				func(ctx context.Context) {
					_, _ = srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: "kafka_partition_offsets"})
				},
				func(ctx context.Context) {
					_, _ = srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "kafka_partition_offsets"})
				},
				func(ctx context.Context) {
					_, _ = srv.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: "partition_for_key"})
				},
			} {
				kept = append(kept, callWithPayload(call))
			}
			runtime.GC()
			for i, w := range kept {
				if got := w.Value() != nil; got != tc.wantKept {
					t.Errorf("request %d: its context kept after the answer: %v, want %v", i, got, tc.wantKept)
				}
			}
			runtime.KeepAlive(srv) // a provider process serves until it exits
		})
	}
}

// callWithPayload makes one call with a context that carries 64 KiB, cancelled after the call as
// gRPC does, and returns a weak pointer to that payload.
func callWithPayload(call func(context.Context)) weak.Pointer[[64 << 10]byte] {
	type payloadKey struct{}
	payload := new([64 << 10]byte)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), payloadKey{}, payload))
	call(ctx)
	cancel()
	return weak.Make(payload)
}
