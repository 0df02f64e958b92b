package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
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
	MaxTotalLag  types.Int64          `tfsdk:"max_total_lag"`
	Timeout      timetypes.GoDuration `tfsdk:"timeout"`
	PollInterval timetypes.GoDuration `tfsdk:"poll_interval"`
}

// Bounds of the wait: a day at most, as the provider's timeout; a poll at most every second.
const (
	defaultPollInterval = 5 * time.Second
	minWaitDuration     = time.Second
	maxWaitDuration     = maxTimeout
	maxPollInterval     = time.Hour
)

func groupWaitBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Wait for the group to catch up: read again every `poll_interval` until " +
			"`total_lag <= max_total_lag` **and** every partition read has a commit with a `lag` of 0 or more " +
			"(a negative `lag`, a commit past the log end, is not progress; with `topics` set, every " +
			"partition of those topics; without it, every partition of the topics the group has committed on, " +
			"and at least one), or fail when `timeout` runs out, naming the partitions still behind with their " +
			"last figures. A group not found yet is waited for too. Progress is logged (`TF_LOG=INFO`) while " +
			"Terraform prints \"Still reading...\". The provider's `timeout` still bounds each single read. " +
			"For a wait during `apply` (after the change that starts the drain), give the data source a " +
			"`depends_on` on that change: see the gating guide.",
		Validators: []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("timeout"))},
		Attributes: map[string]schema.Attribute{
			"max_total_lag": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Done when `total_lag` is at most this, in offsets. Default 0.",
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"timeout": schema.StringAttribute{
				CustomType: timetypes.GoDurationType{},
				Optional:   true, // required in a wait block: AlsoRequires below (a Required one would be required without the block too)
				MarkdownDescription: fmt.Sprintf("Required in a `wait` block. How long to wait in all, as a Go "+
					"duration such as `\"10m\"`, from `%q` to `%q`. Then the read fails with the last figures.",
					shortDuration(minWaitDuration), shortDuration(maxWaitDuration)),
				Validators: []validator.String{durationBetween(minWaitDuration, maxWaitDuration)},
			},
			"poll_interval": schema.StringAttribute{
				CustomType: timetypes.GoDurationType{},
				Optional:   true,
				MarkdownDescription: fmt.Sprintf("Time between the start of one read and the next, as a Go "+
					"duration from `%q` to `%q`. Default `%q`.", shortDuration(minWaitDuration),
					shortDuration(maxPollInterval), shortDuration(defaultPollInterval)),
				Validators: []validator.String{durationBetween(minWaitDuration, maxPollInterval)},
			},
		},
	}
}

// waitSettings are a known wait block's values.
type waitSettings struct {
	maxTotalLag  int64
	timeout      time.Duration
	pollInterval time.Duration
}

func (w *groupWaitModel) settings(diags *diag.Diagnostics) waitSettings {
	s := waitSettings{maxTotalLag: w.MaxTotalLag.ValueInt64(), pollInterval: defaultPollInterval}
	var d diag.Diagnostics
	s.timeout, d = w.Timeout.ValueGoDuration()
	diags.Append(d...)
	if !w.PollInterval.IsNull() {
		s.pollInterval, d = w.PollInterval.ValueGoDuration()
		diags.Append(d...)
	}
	return s
}

// readGroupOffsets reads the group once, or with a wait block until it has caught up; failures
// become diagnostics.
func readGroupOffsets(ctx context.Context, client *kafkaclient.Client, q kafkaclient.GroupOffsetsRequest, w *groupWaitModel, diags *diag.Diagnostics) (kafkaclient.GroupOffsets, bool) {
	read := func(ctx context.Context) (kafkaclient.GroupOffsets, error) { return client.GroupOffsets(ctx, q) }
	var (
		res kafkaclient.GroupOffsets
		err error
	)
	if w == nil {
		res, err = read(ctx)
	} else {
		s := w.settings(diags)
		if diags.HasError() {
			return res, false
		}
		res, err = waitForGroup(ctx, q.GroupID, s, read)
	}
	var behind *groupBehindError
	switch {
	case errors.As(err, &behind):
		diags.AddAttributeError(path.Root("wait").AtName("timeout"), "Consumer group has not caught up", err.Error()+
			". Raise wait.timeout or wait.max_total_lag, or check the group's consumers (are they running, "+
			"and do they commit?).")
		return res, false
	case err != nil:
		addReadError(diags, err, path.Root("topics"))
		return res, false
	}
	return res, true
}

// groupProgress is what one read says about the wait's condition.
type groupProgress struct {
	totalLag    int64                               // kafkaclient.TotalLag: the positive lags; -1 beyond int64
	behind      []kafkaclient.GroupPartitionOffsets // lag > 0
	pastEnd     []kafkaclient.GroupPartitionOffsets // lag < 0: a commit past the log end, not progress
	uncommitted []kafkaclient.GroupPartitionOffsets
	partitions  int
}

func progressOf(res kafkaclient.GroupOffsets) groupProgress {
	p := groupProgress{partitions: len(res.Partitions)}
	for _, gp := range res.Partitions {
		switch {
		case gp.Lag == nil:
			p.uncommitted = append(p.uncommitted, gp)
		case *gp.Lag > 0:
			p.behind = append(p.behind, gp)
		case *gp.Lag < 0:
			p.pastEnd = append(p.pastEnd, gp)
		}
	}
	var ok bool
	if p.totalLag, ok = kafkaclient.TotalLag(res.Partitions); !ok {
		p.totalLag = -1 // beyond int64: never "caught up"
	}
	return p
}

func (p groupProgress) done(maxTotalLag int64) bool {
	return p.partitions > 0 && len(p.uncommitted) == 0 && len(p.pastEnd) == 0 && p.totalLag >= 0 && p.totalLag <= maxTotalLag
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
	if e.lastFail != nil {
		fmt.Fprintf(&b, "; the last read failed: %v", e.lastFail)
	}
	if e.last == nil {
		return b.String()
	}
	p := e.last
	if p.partitions == 0 {
		b.WriteString("; the group has committed on no partition yet (set topics to name the ones to wait for)")
		return b.String()
	}
	fmt.Fprintf(&b, "; last read: total_lag %d (max_total_lag %d)", p.totalLag, e.s.maxTotalLag)
	if len(p.behind) > 0 {
		b.WriteString("; partitions behind: ")
		b.WriteString(listPartitions(p.behind, committedFigures))
	}
	if len(p.pastEnd) > 0 {
		b.WriteString("; partitions whose commit lies past the log end (negative lag: a consumer resets there): ")
		b.WriteString(listPartitions(p.pastEnd, committedFigures))
	}
	if len(p.uncommitted) > 0 {
		b.WriteString("; partitions without a commit: ")
		b.WriteString(listPartitions(p.uncommitted, func(gp kafkaclient.GroupPartitionOffsets) string {
			return fmt.Sprintf("%s/%d (latest %d)", gp.Topic, gp.Partition, gp.Latest)
		}))
	}
	return b.String()
}

// committedFigures shows a committed partition's last figures.
func committedFigures(gp kafkaclient.GroupPartitionOffsets) string {
	return fmt.Sprintf("%s/%d (committed %d, latest %d, lag %d)", gp.Topic, gp.Partition, *gp.Committed, gp.Latest, *gp.Lag)
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

// waitForGroup reads until the group has caught up or s.timeout has passed. A read that fails
// for another reason than "group not found" ends the wait at once: it would fail the same way.
func waitForGroup(ctx context.Context, group string, s waitSettings, read func(context.Context) (kafkaclient.GroupOffsets, error)) (kafkaclient.GroupOffsets, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	behind := &groupBehindError{group: group, s: s}
	for {
		next := time.Now().Add(s.pollInterval)
		res, err := read(ctx)
		behind.reads++
		var missing *kafkaclient.GroupNotFoundError
		switch {
		case err == nil:
			p := progressOf(res)
			if p.done(s.maxTotalLag) {
				tflog.Info(ctx, "consumer group has caught up", map[string]any{
					"total_lag": p.totalLag, "reads": behind.reads, "elapsed": time.Since(start).Round(time.Millisecond).String(),
				})
				return res, nil
			}
			behind.last, behind.lastFail = &p, nil
			tflog.Info(ctx, "waiting for the consumer group to catch up", map[string]any{
				"total_lag": p.totalLag, "max_total_lag": s.maxTotalLag, "partitions_behind": len(p.behind),
				"partitions_without_commit": len(p.uncommitted), "partitions_past_log_end": len(p.pastEnd), "elapsed": time.Since(start).Round(time.Second).String(),
			})
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
