package provider

// The plumbing every data source shares: registration, Configure, the unknown-provider check, and
// nested lists. Attributes they share are in shared_attributes.go; each data source's own schema
// and Read live in its own file.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// DataSources lists every data source the provider serves, one file each.
func (p *KafkaProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewPartitionOffsetsDataSource,
		NewTopicOffsetsDataSource,
		NewConsumerGroupOffsetsDataSource,
		NewTopicsOffsetsDataSource,
		NewConsumerGroupsDataSource,
	}
}

// configureData is the shared Configure of every data source: it keeps the provider's client.
func configureData(req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) *providerData {
	if req.ProviderData == nil {
		return nil // the provider is not configured yet (validation); Read always comes after Configure
	}
	data, ok := req.ProviderData.(*providerData)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("got %T; this is a bug in the provider", req.ProviderData))
	}
	return data
}

// clientKnown reports whether there is a client to read with, and explains when there is not.
func clientKnown(data *providerData, diags *diag.Diagnostics) bool {
	if data == nil || data.client == nil {
		diags.AddError("Provider configuration not known yet", providerUnknownDetail)
		return false
	}
	return true
}

// providerUnknownDetail explains a read attempted while the provider's own configuration was unknown.
const providerUnknownDetail = "The kafka provider's configuration depends on values known only after apply " +
	"(for example bootstrap_servers taken from a cluster created in the same run), so there is no cluster to " +
	"read from while planning. Add depends_on = [<the resource that creates the cluster>] to this data source: " +
	"Terraform then reads it during apply, once the address is known. Nothing was dialled."

// nestedList is a list nested attribute's value: one object per item, whose attribute values
// attrs gives; its element type is the schema's own nested object, so the attribute types are
// written once. It uses the framework's value constructors, not its reflection
// (types.ListValueFrom on tfsdk-tagged structs), which compiles a regular expression for every
// field of every item: for kafka_topic_offsets on 10,000 partitions that doubled the provider's
// CPU time in a plan (make bench).
func nestedList[T any](elem schema.NestedAttributeObject, items []T, attrs func(T) map[string]attr.Value, diags *diag.Diagnostics) types.List {
	elemType := nestedAttrType(elem)
	values := make([]attr.Value, len(items))
	for i, item := range items {
		v, d := types.ObjectValue(elemType.AttrTypes, attrs(item))
		diags.Append(d...)
		values[i] = v
	}
	list, d := types.ListValue(elemType, values)
	diags.Append(d...)
	return list
}

// nestedAttrType is the object type of a nested attribute's entries, from its schema.
func nestedAttrType(elem schema.NestedAttributeObject) types.ObjectType {
	elemType := types.ObjectType{AttrTypes: make(map[string]attr.Type, len(elem.Attributes))}
	for name, a := range elem.Attributes {
		elemType.AttrTypes[name] = a.GetType()
	}
	return elemType
}
