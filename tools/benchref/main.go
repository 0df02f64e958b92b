// Command benchref is the reference provider of the Terraform-level benchmark (tools/bench): the
// same Terraform framework and the same schema for the attributes the benchmark uses, with its
// Kafka side written on franz-go's kadm, the way a small provider would be. Test-only code: never
// released.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return &refProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/kafka-offsets/kafka"})
	if err != nil {
		log.Fatal(err)
	}
}

type refProvider struct {
	adm *kadm.Client
}

func (p *refProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kafka"
}

func (p *refProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{Attributes: map[string]pschema.Attribute{
		"bootstrap_servers": pschema.ListAttribute{ElementType: types.StringType, Optional: true},
	}}
}

func (p *refProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg struct {
		BootstrapServers []string `tfsdk:"bootstrap_servers"`
	}
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.BootstrapServers...))
	if err != nil {
		resp.Diagnostics.AddError("kgo", err.Error())
		return
	}
	p.adm = kadm.NewClient(cl)
	resp.DataSourceData = p.adm
}

func (p *refProvider) Resources(context.Context) []func() resource.Resource { return nil }

func (p *refProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		func() datasource.DataSource { return &partitionDS{} },
		func() datasource.DataSource { return &topicDS{} },
		func() datasource.DataSource { return &topicsDS{} },
		func() datasource.DataSource { return &groupsDS{} },
		func() datasource.DataSource { return &groupDS{} },
	}
}

type adm struct{ adm *kadm.Client }

func (a *adm) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if c, ok := req.ProviderData.(*kadm.Client); ok {
		a.adm = c
	}
}

// ends lists the start and end offsets of every partition of topic, as kadm does.
func (a *adm) ends(ctx context.Context, topic string) (kadm.ListedOffsets, kadm.ListedOffsets, error) {
	start, err := a.adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = start.Error()
	}
	if err != nil {
		return nil, nil, err
	}
	end, err := a.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = end.Error()
	}
	return start, end, err
}

type partitionDS struct{ adm }

func (d *partitionDS) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_partition_offsets"
}

func (d *partitionDS) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	// The attributes of this provider's kafka_partition_offsets. kadm has no max-timestamp
	// lookup (ListOffsets -3): those two stay null, and timestamp is not read.
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"topic":                schema.StringAttribute{Required: true},
		"partition":            schema.Int64Attribute{Required: true},
		"isolation_level":      schema.StringAttribute{Optional: true},
		"timestamp":            schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{}},
		"earliest_offset":      schema.Int64Attribute{Computed: true},
		"latest_offset":        schema.Int64Attribute{Computed: true},
		"timestamp_offset":     schema.Int64Attribute{Computed: true},
		"max_timestamp_offset": schema.Int64Attribute{Computed: true},
		"max_timestamp":        schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}},
	}}
}

type partitionModel struct {
	Topic              types.String      `tfsdk:"topic"`
	Partition          types.Int64       `tfsdk:"partition"`
	IsolationLevel     types.String      `tfsdk:"isolation_level"`
	Timestamp          timetypes.RFC3339 `tfsdk:"timestamp"`
	EarliestOffset     types.Int64       `tfsdk:"earliest_offset"`
	LatestOffset       types.Int64       `tfsdk:"latest_offset"`
	TimestampOffset    types.Int64       `tfsdk:"timestamp_offset"`
	MaxTimestampOffset types.Int64       `tfsdk:"max_timestamp_offset"`
	MaxTimestamp       timetypes.RFC3339 `tfsdk:"max_timestamp"`
}

func (d *partitionDS) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m partitionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	start, end, err := d.ends(ctx, m.Topic.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("kadm", err.Error())
		return
	}
	s, ok1 := start.Lookup(m.Topic.ValueString(), int32(m.Partition.ValueInt64()))
	e, ok2 := end.Lookup(m.Topic.ValueString(), int32(m.Partition.ValueInt64()))
	if !ok1 || !ok2 {
		resp.Diagnostics.AddError("kadm", "no such partition")
		return
	}
	m.EarliestOffset, m.LatestOffset = types.Int64Value(s.Offset), types.Int64Value(e.Offset)
	m.TimestampOffset, m.MaxTimestampOffset = types.Int64Null(), types.Int64Null()
	m.MaxTimestamp = timetypes.NewRFC3339Null()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

type topicDS struct{ adm }

func (d *topicDS) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topic_offsets"
}

func (d *topicDS) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	// The attributes of this provider's kafka_topic_offsets.
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"topic":           schema.StringAttribute{Required: true},
		"isolation_level": schema.StringAttribute{Optional: true},
		"timestamp":       schema.StringAttribute{Optional: true, CustomType: timetypes.RFC3339Type{}},
		"partition_count": schema.Int64Attribute{Computed: true},
		"message_count":   schema.Int64Attribute{Computed: true},
		"partitions": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"partition":        schema.Int64Attribute{Computed: true},
				"earliest_offset":  schema.Int64Attribute{Computed: true},
				"latest_offset":    schema.Int64Attribute{Computed: true},
				"timestamp_offset": schema.Int64Attribute{Computed: true},
			},
		}},
	}}
}

type topicPartition struct {
	Partition       int64       `tfsdk:"partition"`
	EarliestOffset  int64       `tfsdk:"earliest_offset"`
	LatestOffset    int64       `tfsdk:"latest_offset"`
	TimestampOffset types.Int64 `tfsdk:"timestamp_offset"`
}

type topicModel struct {
	Topic          types.String      `tfsdk:"topic"`
	IsolationLevel types.String      `tfsdk:"isolation_level"`
	Timestamp      timetypes.RFC3339 `tfsdk:"timestamp"`
	PartitionCount types.Int64       `tfsdk:"partition_count"`
	MessageCount   types.Int64       `tfsdk:"message_count"`
	Partitions     []topicPartition  `tfsdk:"partitions"`
}

func (d *topicDS) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m topicModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	topic := m.Topic.ValueString()
	start, end, err := d.ends(ctx, topic)
	if err != nil {
		resp.Diagnostics.AddError("kadm", err.Error())
		return
	}
	m.Partitions = nil
	for p := int32(0); ; p++ {
		s, ok := start.Lookup(topic, p)
		if !ok {
			break
		}
		e, _ := end.Lookup(topic, p)
		m.Partitions = append(m.Partitions, topicPartition{Partition: int64(p), EarliestOffset: s.Offset, LatestOffset: e.Offset,
			TimestampOffset: types.Int64Null()})
	}
	var messages int64
	for _, p := range m.Partitions {
		messages += p.LatestOffset - p.EarliestOffset
	}
	m.PartitionCount = types.Int64Value(int64(len(m.Partitions)))
	m.MessageCount = types.Int64Value(messages)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
