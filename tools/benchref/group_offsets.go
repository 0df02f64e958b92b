package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// groupDS is kafka_consumer_group_offsets the way a small kadm provider would write it: kadm's
// Lag of the group (DescribeGroups, OffsetFetch, then ListStartOffsets and ListEndOffsets of the
// topics it commits on), keeping the topics named where topics is set. Its schema is this
// provider's attributes (the wait block aside); what kadm does not say (group_type, time lag)
// stays null.
type groupDS struct{ adm }

func (d *groupDS) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_consumer_group_offsets"
}

func (d *groupDS) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"group_id":               schema.StringAttribute{Required: true},
		"allow_missing":          schema.BoolAttribute{Optional: true},
		"exists":                 schema.BoolAttribute{Computed: true},
		"topics":                 schema.SetAttribute{ElementType: types.StringType, Optional: true},
		"isolation_level":        schema.StringAttribute{Optional: true},
		"fetch_timestamps":       schema.BoolAttribute{Optional: true},
		"state":                  schema.StringAttribute{Computed: true},
		"group_type":             schema.StringAttribute{Computed: true},
		"member_count":           schema.Int64Attribute{Computed: true},
		"uncommitted_partitions": schema.Int64Attribute{Computed: true},
		"total_lag":              schema.Int64Attribute{Computed: true},
		"caught_up":              schema.BoolAttribute{Computed: true},
		"not_caught_up":          schema.ListAttribute{ElementType: types.StringType, Computed: true},
		"max_time_lag_ms":        schema.Int64Attribute{Computed: true},
		"partitions": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"topic":                 schema.StringAttribute{Computed: true},
				"partition":             schema.Int64Attribute{Computed: true},
				"committed_offset":      schema.Int64Attribute{Computed: true},
				"assigned":              schema.BoolAttribute{Computed: true},
				"caught_up":             schema.BoolAttribute{Computed: true},
				"latest_offset":         schema.Int64Attribute{Computed: true},
				"lag":                   schema.Int64Attribute{Computed: true},
				"next_record_timestamp": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}},
				"time_lag_ms":           schema.Int64Attribute{Computed: true},
			},
		}},
		"committed_offsets": schema.MapAttribute{ElementType: types.Int64Type, Computed: true},
	}}
}

type groupPartition struct {
	Topic               string            `tfsdk:"topic"`
	Partition           int64             `tfsdk:"partition"`
	CommittedOffset     int64             `tfsdk:"committed_offset"`
	Assigned            bool              `tfsdk:"assigned"`
	CaughtUp            bool              `tfsdk:"caught_up"`
	LatestOffset        int64             `tfsdk:"latest_offset"`
	Lag                 int64             `tfsdk:"lag"`
	NextRecordTimestamp timetypes.RFC3339 `tfsdk:"next_record_timestamp"`
	TimeLagMs           types.Int64       `tfsdk:"time_lag_ms"`
}

type groupModel struct {
	GroupID         types.String     `tfsdk:"group_id"`
	AllowMissing    types.Bool       `tfsdk:"allow_missing"`
	Exists          types.Bool       `tfsdk:"exists"`
	Topics          []string         `tfsdk:"topics"`
	IsolationLevel  types.String     `tfsdk:"isolation_level"`
	FetchTimestamps types.Bool       `tfsdk:"fetch_timestamps"`
	State           types.String     `tfsdk:"state"`
	GroupType       types.String     `tfsdk:"group_type"`
	MemberCount     types.Int64      `tfsdk:"member_count"`
	Uncommitted     types.Int64      `tfsdk:"uncommitted_partitions"`
	TotalLag        types.Int64      `tfsdk:"total_lag"`
	CaughtUp        types.Bool       `tfsdk:"caught_up"`
	NotCaughtUp     []string         `tfsdk:"not_caught_up"`
	MaxTimeLagMs    types.Int64      `tfsdk:"max_time_lag_ms"`
	Partitions      []groupPartition `tfsdk:"partitions"`
	Committed       map[string]int64 `tfsdk:"committed_offsets"`
}

func (d *groupDS) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readModel(ctx, req, resp, func(m *groupModel) error {
		group := m.GroupID.ValueString()
		lags, err := d.adm.adm.Lag(ctx, group)
		if err == nil {
			err = lags.Error()
		}
		if err != nil {
			return err
		}
		l, ok := lags[group]
		if !ok {
			return fmt.Errorf("group %q not described", group)
		}
		m.Partitions, m.NotCaughtUp, m.Committed = []groupPartition{}, []string{}, map[string]int64{}
		var total int64
		for _, p := range l.Lag.Sorted() {
			if m.Topics != nil && !slices.Contains(m.Topics, p.Topic) {
				continue
			}
			m.Partitions = append(m.Partitions, groupPartition{Topic: p.Topic, Partition: int64(p.Partition),
				CommittedOffset: p.Commit.At, Assigned: !p.IsEmpty(), CaughtUp: p.Lag == 0, LatestOffset: p.End.Offset,
				Lag: p.Lag, NextRecordTimestamp: timetypes.NewRFC3339Null(), TimeLagMs: types.Int64Null()})
			m.Committed[fmt.Sprintf("%s/%d", p.Topic, p.Partition)] = p.Commit.At
			total += p.Lag
			if p.Lag != 0 {
				m.NotCaughtUp = append(m.NotCaughtUp, fmt.Sprintf("%s/%d: lag %d", p.Topic, p.Partition, p.Lag))
			}
		}
		m.Exists, m.State, m.GroupType = types.BoolValue(true), types.StringValue(l.State), types.StringNull()
		m.MemberCount, m.Uncommitted = types.Int64Value(int64(len(l.Members))), types.Int64Value(0)
		m.TotalLag, m.CaughtUp, m.MaxTimeLagMs = types.Int64Value(total), types.BoolValue(total == 0), types.Int64Null()
		return nil
	})
}
