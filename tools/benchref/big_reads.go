package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-offsets/terraform-provider-kafka/tools/benchref/kadmref"
)

// The two big reads, written the way a small kadm provider would: kadm's
// ListStartOffsets/ListEndOffsets over every topic, and every group's lag from ListGroups,
// OffsetFetch and ListOffsets (kadmref). Their schemas
// are this provider's attributes; what kadm does not say (group_type, time lag) stays null.

type topicsDS struct{ adm }

func (d *topicsDS) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topics_offsets"
}

func (d *topicsDS) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"name_regex":       schema.StringAttribute{Optional: true},
		"include_internal": schema.BoolAttribute{Optional: true},
		"isolation_level":  schema.StringAttribute{Optional: true},
		"topics": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"name":            schema.StringAttribute{Computed: true},
				"partition_count": schema.Int64Attribute{Computed: true},
				"message_count":   schema.Int64Attribute{Computed: true},
				"internal":        schema.BoolAttribute{Computed: true},
			},
		}},
	}}
}

type topicsEntry struct {
	Name           string `tfsdk:"name"`
	PartitionCount int64  `tfsdk:"partition_count"`
	MessageCount   int64  `tfsdk:"message_count"`
	Internal       bool   `tfsdk:"internal"`
}

type topicsModel struct {
	NameRegex       types.String  `tfsdk:"name_regex"`
	IncludeInternal types.Bool    `tfsdk:"include_internal"`
	IsolationLevel  types.String  `tfsdk:"isolation_level"`
	Topics          []topicsEntry `tfsdk:"topics"`
}

func (d *topicsDS) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readModel(ctx, req, resp, func(m *topicsModel) error {
		m.Topics = nil
		return kadmref.TopicsOffsets(ctx, d.adm.adm, func(name string, partitions, messages int64) {
			m.Topics = append(m.Topics, topicsEntry{Name: name, PartitionCount: partitions, MessageCount: messages})
		})
	})
}

// readModel reads the configuration into a model, lets fill complete it, and writes it to the state.
func readModel[M any](ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse, fill func(m *M) error) {
	var m M
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := fill(&m); err != nil {
		resp.Diagnostics.AddError("kadm", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

type groupsDS struct{ adm }

func (d *groupsDS) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_consumer_groups"
}

func (d *groupsDS) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"topics":           schema.SetAttribute{ElementType: types.StringType, Optional: true},
		"group_id_regex":   schema.StringAttribute{Optional: true},
		"isolation_level":  schema.StringAttribute{Optional: true},
		"fetch_timestamps": schema.BoolAttribute{Optional: true},
		"groups": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"group_id":               schema.StringAttribute{Computed: true},
				"state":                  schema.StringAttribute{Computed: true},
				"protocol_type":          schema.StringAttribute{Computed: true},
				"group_type":             schema.StringAttribute{Computed: true},
				"topics":                 schema.ListAttribute{ElementType: types.StringType, Computed: true},
				"listed_because":         schema.ListAttribute{ElementType: types.StringType, Computed: true},
				"uncommitted_partitions": schema.Int64Attribute{Computed: true},
				"total_lag":              schema.Int64Attribute{Computed: true},
				"max_time_lag_ms":        schema.Int64Attribute{Computed: true},
			},
		}},
	}}
}

type groupsEntry struct {
	GroupID       string       `tfsdk:"group_id"`
	State         string       `tfsdk:"state"`
	ProtocolType  string       `tfsdk:"protocol_type"`
	GroupType     types.String `tfsdk:"group_type"`
	Topics        []string     `tfsdk:"topics"`
	ListedBecause []string     `tfsdk:"listed_because"`
	Uncommitted   int64        `tfsdk:"uncommitted_partitions"`
	TotalLag      int64        `tfsdk:"total_lag"`
	MaxTimeLagMs  types.Int64  `tfsdk:"max_time_lag_ms"`
}

type groupsModel struct {
	Topics          types.Set     `tfsdk:"topics"`
	GroupIDRegex    types.String  `tfsdk:"group_id_regex"`
	IsolationLevel  types.String  `tfsdk:"isolation_level"`
	FetchTimestamps types.Bool    `tfsdk:"fetch_timestamps"`
	Groups          []groupsEntry `tfsdk:"groups"`
}

func (d *groupsDS) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readModel(ctx, req, resp, func(m *groupsModel) error {
		m.Groups = nil
		return kadmref.GroupsLag(ctx, d.adm.adm, func(l kadm.ListedGroup, topics []string, lag int64) {
			because := []string{}
			if len(topics) > 0 {
				because = append(because, "committed")
			}
			m.Groups = append(m.Groups, groupsEntry{GroupID: l.Group, State: l.State, ProtocolType: l.ProtocolType,
				GroupType: types.StringNull(), Topics: topics, ListedBecause: because, TotalLag: lag, MaxTimeLagMs: types.Int64Null()})
		})
	})
}
