package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The wait block of kafka_consumer_group_offsets: read again until the group has caught up.

type groupWaitModel struct {
	Enabled      types.Bool      `tfsdk:"enabled"`
	MaxTotalLag  types.Int64     `tfsdk:"max_total_lag"`
	MaxTimeLag   goDurationValue `tfsdk:"max_time_lag"`
	StallTimeout goDurationValue `tfsdk:"stall_timeout"`
	Timeout      goDurationValue `tfsdk:"timeout"`
	PollInterval goDurationValue `tfsdk:"poll_interval"`
}

// enabled: the configuration has a wait block that is on; otherwise the data source reads once.
func (w *groupWaitModel) enabled() bool { return w != nil && w.Enabled.ValueBool() }

// waitsForTime: the wait is on and has a time-lag condition, so its reads need the timestamps.
func (w *groupWaitModel) waitsForTime() bool { return w.enabled() && !w.MaxTimeLag.IsNull() }

// Bounds of the wait: a day at most, as the provider's timeout; a poll at most every second.
const (
	defaultPollInterval = 5 * time.Second
	minWaitDuration     = time.Second
	maxWaitDuration     = maxTimeout
	maxPollInterval     = time.Hour
)

func groupWaitBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Wait for the group to catch up: read again every `poll_interval` " +
			"until `caught_up` is `true` (with `max_total_lag` or `max_time_lag`, until those hold and no " +
			"partition is behind by an amount they do not measure), or fail when its `timeout` runs out with " +
			"the reasons `not_caught_up` gives, or earlier when `stall_timeout` says the group has stopped. A group not found yet is " +
			"waited for too, the data source's `timeout` (else the provider's) still bounds each single read, and each " +
			"read's progress is logged at INFO (`TF_LOG=INFO`). For a wait during `apply`, give " +
			"the data source a `depends_on` on the change that starts the drain: the guide of " +
			"the wait-for-drain recipe has it and which conditions apply when, that of first-rollout " +
			"a group that does not exist yet.",
		Validators: []validator.Object{waitRequires{}},
		Attributes: map[string]schema.Attribute{
			"enabled": schema.BoolAttribute{
				Optional: true, // required in a wait block: waitRequires
				MarkdownDescription: "Required in a `wait` block: whether this read waits (`false` reads once, as " +
					"without the block). Terraform reads a data source whenever it plans, and waits with it, unless " +
					"its configuration depends on a change not yet applied (then it reads during `apply`): a wait " +
					"left on would hold every later plan, of every pull request, while the group lags. Set it from a " +
					"variable that only the run meant to wait sets (`terraform apply -var wait_for_drain=true`).",
			},
			"max_total_lag": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Done when `total_lag` is at most this, in offsets. Default 0 when " +
					"`max_time_lag` is not set; no offset condition when only `max_time_lag` is.",
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"max_time_lag": schema.StringAttribute{
				CustomType: goDurationType{},
				Optional:   true,
				MarkdownDescription: fmt.Sprintf("Done when every partition read has a `time_lag_ms` at most this "+
					"(its oldest unread record at most this old), for live topics whose offset lag never reaches 0: "+
					"a Go duration such as `\"60s\"`, from `\"0s\"` to `%q`. Reads the timestamps as "+
					"`fetch_timestamps = true` does, and needs the same READ ACL. A partition whose `time_lag_ms` "+
					"is `null` (a record without a timestamp) is never done.", shortDuration(maxWaitDuration)),
				Validators: []validator.String{durationBetween(0, maxWaitDuration)},
			},
			"stall_timeout": schema.StringAttribute{
				CustomType: goDurationType{},
				Optional:   true,
				MarkdownDescription: fmt.Sprintf("Fail before `timeout` when a partition that has not caught up "+
					"keeps the same committed offset (or none) for this long, naming the group's state and each "+
					"stalled partition: Burrow's \"stalled consumer\" rule, per partition, so one partition stuck "+
					"behind a poison record stalls the wait however fast the others commit. A Go duration from "+
					"`%q` to `%q`, counted from the first read that saw the partition, longer than the group's "+
					"commit interval (`auto.commit.interval.ms`, 5 s by default) and `poll_interval`. Default: no "+
					"stall check.", shortDuration(minWaitDuration), shortDuration(maxWaitDuration)),
				Validators: []validator.String{durationBetween(minWaitDuration, maxWaitDuration)},
			},
			"timeout": schema.StringAttribute{
				CustomType: goDurationType{},
				Optional:   true, // required in a wait block: waitRequires (a Required one would be required without the block too)
				MarkdownDescription: fmt.Sprintf("Required in a `wait` block. How long to wait in all, as a Go "+
					"duration such as `\"10m\"`, from `%q` to `%q`, where the data source's own `timeout` bounds "+
					"each read of the wait. Then the read fails with the last figures.",
					shortDuration(minWaitDuration), shortDuration(maxWaitDuration)),
				Validators: []validator.String{durationBetween(minWaitDuration, maxWaitDuration)},
			},
			"poll_interval": schema.StringAttribute{
				CustomType: goDurationType{},
				Optional:   true,
				MarkdownDescription: fmt.Sprintf("Time between the start of one read and the next, as a Go "+
					"duration from `%q` to `%q`. Default `%q`.", shortDuration(minWaitDuration),
					shortDuration(maxPollInterval), shortDuration(defaultPollInterval)),
				Validators: []validator.String{durationBetween(minWaitDuration, maxPollInterval)},
			},
		},
	}
}

// summaryIncompleteWait: a wait block without enabled or timeout (waitRequires).
const summaryIncompleteWait = "Incomplete wait block"

// waitRequired is each attribute a wait block must set, and why: the framework's own check
// (objectvalidator.AlsoRequires) says only that it "must be specified".
var waitRequired = []struct{ name, why string }{
	{"enabled", "wait.enabled is required: whether this read waits. A provider cannot tell a plan's read " +
		"from an apply's: Terraform reads a data source whenever it plans (unless it depends on a change not " +
		"yet applied), so a wait without a switch would hold every plan, of every pull request, for as long as " +
		"the group lags. Set it from a variable that only the apply meant to wait sets: enabled = " +
		"var.wait_for_drain, and terraform apply -var wait_for_drain=true. enabled = false reads once, as " +
		"without the block."},
	{"timeout", "wait.timeout is required: how long to wait in all, as a Go duration such as \"10m\" (at most " +
		"24h). When it runs out the read fails, naming the partitions still behind, rather than hold the run " +
		"for as long as the group lags."},
}

// waitRequires checks that a wait block sets every attribute of waitRequired.
type waitRequires struct{}

func (waitRequires) Description(context.Context) string {
	return "a wait block sets enabled and timeout"
}

func (v waitRequires) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (waitRequires) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	for _, r := range waitRequired {
		if v, ok := attrs[r.name]; ok && v.IsNull() {
			resp.Diagnostics.AddAttributeError(req.Path.AtName(r.name), summaryIncompleteWait, r.why)
		}
	}
}

// waitSettings are a known wait block's values.
type waitSettings struct {
	maxTotalLag  *int64         // nil: no offset condition (only max_time_lag is set)
	maxTimeLag   *time.Duration // nil: no time condition
	stallTimeout time.Duration  // 0: no stall check
	timeout      time.Duration
	pollInterval time.Duration
}

func (w *groupWaitModel) settings(diags *diag.Diagnostics) waitSettings {
	s := waitSettings{pollInterval: defaultPollInterval}
	s.timeout = goDuration(w.Timeout, diags)
	if !w.PollInterval.IsNull() {
		s.pollInterval = goDuration(w.PollInterval, diags)
	}
	if !w.StallTimeout.IsNull() {
		s.stallTimeout = goDuration(w.StallTimeout, diags)
	}
	if !w.MaxTimeLag.IsNull() {
		d := goDuration(w.MaxTimeLag, diags)
		s.maxTimeLag = &d
	}
	if !w.MaxTotalLag.IsNull() || s.maxTimeLag == nil {
		n := w.MaxTotalLag.ValueInt64() // 0 when unset
		s.maxTotalLag = &n
	}
	return s
}

// goDuration is a known duration attribute's value.
func goDuration(v goDurationValue, diags *diag.Diagnostics) time.Duration {
	d, ds := v.ValueGoDuration()
	diags.Append(ds...)
	return d
}

// readGroupOffsets reads the group once, or with a wait block until it has caught up; failures
// become diagnostics.
func readGroupOffsets(ctx context.Context, data *providerData, q kafkaclient.GroupOffsetsRequest, w *groupWaitModel,
	allowMissing bool, diags *diag.Diagnostics) (res kafkaclient.GroupOffsets, missing *kafkaclient.GroupNotFoundError, ok bool) {
	// Each of a wait's reads has its own summary (read_log.go): a wait of minutes says which poll was slow.
	read := func(ctx context.Context) (kafkaclient.GroupOffsets, error) {
		ctx, rl := startReadLog(ctx, data)
		res, err := data.client.GroupOffsets(ctx, q)
		rl.endWith(err)
		return res, err
	}
	var err error
	if !w.enabled() {
		res, err = read(ctx)
	} else {
		s := w.settings(diags)
		if diags.HasError() {
			return res, nil, false
		}
		res, err = waitForGroup(ctx, q.GroupID, s, read)
	}
	var (
		behind  *groupBehindError
		stalled *groupStalledError
	)
	switch {
	case allowMissing && errors.As(err, &missing):
		return res, missing, true
	case errors.As(err, &stalled):
		diags.AddAttributeError(path.Root("wait").AtName("stall_timeout"), "Consumer group stalled", err.Error()+
			". Check the group's consumers: are they running, do they commit, do they fail on a record? Raise "+
			"wait.stall_timeout if they commit less often.")
		return res, nil, false
	case errors.As(err, &behind):
		diags.AddAttributeError(path.Root("wait").AtName("timeout"), "Consumer group has not caught up", err.Error()+
			". Raise wait.timeout, wait.max_total_lag or wait.max_time_lag, or check the group's consumers (are they running, "+
			"and do they commit?).")
		return res, nil, false
	case err != nil:
		addReadError(diags, err, consumerGroupOffsetsErrorAttrs, data.principal)
		return res, nil, false
	}
	return res, nil, true
}

// groupProgress is what one read says about the wait's condition, from the read's verdict
// (kafkaclient's verdict.go): the wait and caught_up cannot disagree.
type groupProgress struct {
	verdict    kafkaclient.Verdict
	totalLag   int64                               // the verdict's total_lag; -1 where it is null
	maxTimeLag *int64                              // the verdict's max_time_lag_ms, when the reads fetch timestamps
	behind     []kafkaclient.GroupPartitionOffsets // not caught up by a measured amount (Measured)
	unknown    []kafkaclient.GroupPartitionOffsets // not caught up, at a position nobody knows
	partitions []kafkaclient.GroupPartitionOffsets // all of them
}

func progressOf(res kafkaclient.GroupOffsets) groupProgress {
	p := groupProgress{verdict: res.Verdict, totalLag: -1, maxTimeLag: res.MaxTimeLagMs, partitions: res.Partitions}
	if res.TotalLag != nil {
		p.totalLag = *res.TotalLag
	}
	for _, gp := range res.Partitions {
		switch {
		case gp.NotCaughtUp() == "":
		case gp.Measured():
			p.behind = append(p.behind, gp)
		default:
			p.unknown = append(p.unknown, gp)
		}
	}
	return p
}

// done: the conditions that s sets hold. Without them (max_total_lag 0, no max_time_lag) that is
// the verdict's caught_up; a tolerance lets through only partitions behind by a measured amount,
// never one whose position is unknown, a topic the read could not see, or no partition at all.
// total_lag counts the records held behind an open transaction (kafkaclient's verdict.go), so a
// tolerance weighs them as any other records that wait.
func (p groupProgress) done(s waitSettings) bool {
	if len(p.partitions) == 0 || p.verdict.Unseen != "" || len(p.unknown) > 0 || p.totalLag < 0 {
		return false
	}
	if s.maxTotalLag != nil && p.totalLag > *s.maxTotalLag {
		return false
	}
	return s.maxTimeLag == nil || (p.maxTimeLag != nil && *p.maxTimeLag <= s.maxTimeLag.Milliseconds())
}

// lateInTime are the partitions whose time lag is unknown or above the wait's max_time_lag.
func (p groupProgress) lateInTime(s waitSettings) []kafkaclient.GroupPartitionOffsets {
	var late []kafkaclient.GroupPartitionOffsets
	for _, gp := range p.partitions {
		if gp.Measured() && (gp.LagMs == nil || *gp.LagMs > s.maxTimeLag.Milliseconds()) {
			late = append(late, gp)
		}
	}
	return late
}

// groupBehindError: the wait ran out before the group caught up.
type groupBehindError struct {
	group    string
	s        waitSettings
	reads    int
	last     *groupProgress // nil when no read succeeded
	lastFail error          // the last read's error, when it failed (group not found yet)
}

// maxListed bounds the partitions an error names; the rest are counted.
const maxListed = 20

func (e *groupBehindError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "consumer group %q did not catch up within the wait timeout of %s (%d reads)", e.group, e.s.timeout, e.reads)
	var missing *kafkaclient.GroupNotFoundError
	switch {
	case errors.As(e.lastFail, &missing): // a group id misspelt never appears: say which ids are near
		fmt.Fprintf(&b, "; the last read failed: %s", missingReason(missing))
	case e.lastFail != nil:
		fmt.Fprintf(&b, "; the last read failed: %v", e.lastFail)
	}
	if e.last != nil {
		e.last.describe(&b, e.s)
	}
	return b.String()
}

// describe writes the last read's figures and the verdict's reasons, which keep the wait from ending.
func (p *groupProgress) describe(b *strings.Builder, s waitSettings) {
	if p.totalLag < 0 {
		b.WriteString("; last read: total_lag null")
	} else {
		fmt.Fprintf(b, "; last read: total_lag %d", p.totalLag)
	}
	if s.maxTotalLag != nil {
		fmt.Fprintf(b, " (max_total_lag %d)", *s.maxTotalLag)
	}
	if s.maxTimeLag != nil {
		fmt.Fprintf(b, ", max_time_lag_ms %s (max_time_lag %s)", optionalMs(p.maxTimeLag), s.maxTimeLag)
		if late := p.lateInTime(s); len(late) > 0 {
			b.WriteString("; partitions behind in time: ")
			b.WriteString(listPartitions(late, timeFigures))
		}
	}
	if len(p.verdict.NotCaughtUp) > 0 {
		b.WriteString("; not caught up: ")
		b.WriteString(p.verdict.Reasons(maxListed))
	}
}

// optionalMs writes a time lag in ms, "null" for nil.
func optionalMs(ms *int64) string {
	if ms == nil {
		return "null"
	}
	return fmt.Sprint(*ms)
}

// committedFigures shows a committed partition's last figures.
func committedFigures(gp kafkaclient.GroupPartitionOffsets) string {
	return fmt.Sprintf("%s/%d (committed %d, latest %d, lag %d)", gp.Topic, gp.Partition, *gp.Committed, gp.Latest, *gp.Lag)
}

// timeFigures shows a partition's time lag beside its offsets.
func timeFigures(gp kafkaclient.GroupPartitionOffsets) string {
	return fmt.Sprintf("%s/%d (committed %d, lag %d, time_lag_ms %s, next record %s)", gp.Topic, gp.Partition,
		*gp.Committed, *gp.Lag, optionalMs(gp.LagMs), nextRecordTime(gp).ValueString())
}

func listPartitions(ps []kafkaclient.GroupPartitionOffsets, show func(kafkaclient.GroupPartitionOffsets) string) string {
	var parts []string
	for _, gp := range ps[:min(len(ps), maxListed)] {
		parts = append(parts, show(gp))
	}
	if len(ps) > maxListed {
		parts = append(parts, fmt.Sprintf("and %d more", len(ps)-maxListed))
	}
	return strings.Join(parts, ", ")
}

// waitForGroup reads until the group has caught up, s.timeout has passed, or (with
// s.stallTimeout) its commits stopped moving. A read that fails for another reason than "group
// not found" ends the wait at once: it would fail the same way.
func waitForGroup(ctx context.Context, group string, s waitSettings, read func(context.Context) (kafkaclient.GroupOffsets, error)) (kafkaclient.GroupOffsets, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	behind := &groupBehindError{group: group, s: s}
	track := newProgressTracker(time.Now())
	for {
		next := time.Now().Add(s.pollInterval)
		res, err := read(ctx)
		behind.reads++
		var missing *kafkaclient.GroupNotFoundError
		switch {
		case err == nil:
			p := progressOf(res)
			now := time.Now()
			rate := track.observe(now, p)
			if p.done(s) {
				tflog.Info(ctx, "consumer group has caught up", map[string]any{
					"total_lag": p.totalLag, "max_time_lag_ms": optionalMs(p.maxTimeLag), "reads": behind.reads,
					"elapsed": track.elapsed(now).Round(time.Millisecond).String(),
				})
				return res, nil
			}
			behind.last, behind.lastFail = &p, nil
			logWaiting(ctx, p, rate, track.elapsed(now))
			if s.stallTimeout > 0 {
				if stuck := track.stalled(now, p, s.stallTimeout); len(stuck) > 0 {
					return res, &groupStalledError{group: group, state: res.State, s: s, stalled: stuck, last: p}
				}
			}
		case errors.As(err, &missing):
			behind.lastFail = err
			tflog.Info(ctx, "waiting for the consumer group to appear", map[string]any{"error": err.Error()})
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && (behind.last != nil || behind.lastFail != nil):
			return res, behind // the wait ran out during a read: report the last figures
		default:
			return res, err
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return res, behind
			}
			return res, ctx.Err()
		case <-time.After(time.Until(next)):
		}
	}
}

// logWaiting logs one read of a wait that goes on, at INFO.
func logWaiting(ctx context.Context, p groupProgress, r progressRate, elapsed time.Duration) {
	fields := map[string]any{
		"total_lag": p.totalLag, "max_time_lag_ms": optionalMs(p.maxTimeLag), "partitions_behind": len(p.behind),
		"partitions_at_unknown_positions": len(p.unknown),
		"elapsed":                         elapsed.Round(time.Second).String(),
	}
	if r.known {
		fields["committed_offsets_per_second"] = fmt.Sprintf("%.1f", r.commitsPerSecond)
		fields["estimated_time_left"] = "unknown: the lag is not shrinking"
		if r.timeLeft > 0 {
			fields["estimated_time_left"] = r.timeLeft.Round(time.Second).String()
		}
	}
	tflog.Info(ctx, "waiting for the consumer group to catch up", fields)
}
