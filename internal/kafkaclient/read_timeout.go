package kafkaclient

// A read's own timeout: one data source may need a longer bound (every group of a cluster) or a
// shorter one (one partition) than the Client's. It rides on the read's context, so that every
// read takes it alike and nothing in their requests changes.

import (
	"context"
	"time"
)

type readTimeoutKey struct{}

// WithReadTimeout returns ctx carrying d as the bound of each read made with it, in place of
// Config.Timeout; d <= 0 leaves ctx as it is. A read that runs out of it says so: its
// *TimeoutError or *UnreachableError has Timeout d and PerRead set.
func WithReadTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, readTimeoutKey{}, d)
}

// readTimeout is the bound of a read made with ctx: its own (WithReadTimeout, perRead), else
// Config.Timeout.
func (cv *clusterView) readTimeout(ctx context.Context) (d time.Duration, perRead bool) {
	if d, ok := ctx.Value(readTimeoutKey{}).(time.Duration); ok {
		return d, true
	}
	return cv.cfg.Timeout, false
}

// boundRead is ctx ending when the read's timeout runs out.
func (cv *clusterView) boundRead(ctx context.Context) (context.Context, context.CancelFunc) {
	d, _ := cv.readTimeout(ctx)
	return context.WithTimeout(ctx, d)
}
