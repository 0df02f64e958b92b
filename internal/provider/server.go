package provider

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// terraform-plugin-framework v1.19.0 keeps the cancel function of every request's context until
// StopProvider (its proto6server registerContext), which Terraform sends only to interrupt: a
// plan's provider process so keeps every request's context, and with it the request's loggers,
// fields and gRPC metadata, about 59 KB per data source read, until it exits. The framework has
// no release that changes it, and providers cannot reach that list. Server lends each per-data-
// source request's context to the framework for the call only: afterwards the context the
// framework holds answers as cancelled and empty, and keeps nothing of the request.

// Server is the provider's protocol 6 server: the framework's, with the requests a plan sends per
// data source (and per function call) given a borrowed context.
func Server(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		return lendingServer{ProviderServer: providerserver.NewProtocol6(New(version)())()}
	}
}

type lendingServer struct {
	tfprotov6.ProviderServer
}

func (s lendingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return lend(ctx, req, s.ProviderServer.ValidateDataResourceConfig)
}

func (s lendingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return lend(ctx, req, s.ProviderServer.ReadDataSource)
}

func (s lendingServer) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return lend(ctx, req, s.ProviderServer.CallFunction)
}

// lend calls call with a context that is ctx until call returns, and then an empty, cancelled one.
func lend[Req, Resp any](ctx context.Context, req Req, call func(context.Context, Req) (Resp, error)) (Resp, error) {
	b := &borrowedContext{ctx: ctx}
	defer b.giveBack()
	return call(b, req)
}

// borrowedContext is a context lent for one call (lend).
type borrowedContext struct {
	mu  sync.RWMutex
	ctx context.Context // nil once given back
}

// given is what a borrowed context is once given back: cancelled, without deadline or values.
var given = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

func (b *borrowedContext) giveBack() {
	b.mu.Lock()
	b.ctx = nil
	b.mu.Unlock()
}

func (b *borrowedContext) current() context.Context {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.ctx == nil {
		return given
	}
	return b.ctx
}

func (b *borrowedContext) Deadline() (time.Time, bool) { return b.current().Deadline() }
func (b *borrowedContext) Done() <-chan struct{}       { return b.current().Done() }
func (b *borrowedContext) Err() error                  { return b.current().Err() }
func (b *borrowedContext) Value(key any) any           { return b.current().Value(key) }
