package acctest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// ListOffset asks the partition's leader, through franz-go, what ListOffsets answers for one
// timestamp (-1 latest, -2 earliest, -3 max timestamp, or milliseconds) and isolation level
// (0 read_uncommitted, 1 read_committed): the broker's own offset and timestamp, -1 included.
func (k *Kafka) ListOffset(topic string, partition int32, timestamp int64, isolation int8) (offset, ts int64) {
	k.t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.IsolationLevel = isolation
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition = partition
	rp.CurrentLeaderEpoch = -1
	rp.Timestamp = timestamp
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx(k.t), k.Kgo)
	if err != nil {
		k.t.Fatalf("oracle ListOffsets %s/%d at %d: %v", topic, partition, timestamp, err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if t.Topic == topic && p.Partition == partition {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					k.t.Fatalf("oracle ListOffsets %s/%d at %d: %v", topic, partition, timestamp, err)
				}
				return p.Offset, p.Timestamp
			}
		}
	}
	k.t.Fatalf("oracle ListOffsets %s/%d: no answer for the partition", topic, partition)
	return 0, 0
}

// Transactional returns a transactional producer (franz-go) that the test ends itself.
func (k *Kafka) Transactional(id string) *kgo.Client {
	k.t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID(id),
		kgo.TransactionTimeout(5*time.Minute),
	)
	if err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(cl.Close)
	return cl
}

// Transaction produces n records to one partition in a transaction and commits or aborts it;
// with end == nil it leaves the transaction open.
func (k *Kafka) Transaction(cl *kgo.Client, topic string, partition int32, n int, end *kgo.TransactionEndTry) {
	k.t.Helper()
	if err := cl.BeginTransaction(); err != nil {
		k.t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("txn")}
		if err := cl.ProduceSync(ctx(k.t), r).FirstErr(); err != nil {
			k.t.Fatalf("transactional produce: %v", err)
		}
	}
	if end != nil {
		if err := cl.EndTransaction(ctx(k.t), *end); err != nil {
			k.t.Fatalf("end transaction: %v", err)
		}
	}
}

// ProduceAt writes one record per timestamp to one partition, in order.
func (k *Kafka) ProduceAt(topic string, partition int32, ts ...time.Time) {
	k.t.Helper()
	for _, at := range ts {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("record"), Timestamp: at}
		// A partition added a moment ago (AddPartitions) may be missing from the producer's
		// metadata for a moment more: the record is refused before it is sent, so asked again.
		deadline := time.Now().Add(leadersWait)
		err := k.Kgo.ProduceSync(ctx(k.t), r).FirstErr()
		for err != nil && strings.Contains(err.Error(), "invalid record partitioning choice") && time.Now().Before(deadline) {
			k.Kgo.ForceMetadataRefresh()
			time.Sleep(200 * time.Millisecond)
			err = k.Kgo.ProduceSync(ctx(k.t), r).FirstErr()
		}
		if err != nil {
			k.t.Fatalf("produce to %s/%d: %v", topic, partition, err)
		}
	}
}

// ProduceKeyed writes one record per key to one partition, in order.
func (k *Kafka) ProduceKeyed(topic string, partition int32, keys ...string) {
	k.t.Helper()
	for _, key := range keys {
		r := &kgo.Record{Topic: topic, Partition: partition, Key: []byte(key), Value: []byte("value of " + key)}
		if err := k.Kgo.ProduceSync(ctx(k.t), r).FirstErr(); err != nil {
			k.t.Fatalf("produce to %s/%d: %v", topic, partition, err)
		}
	}
}

// CommitOffsets commits offsets for a group as an admin (OffsetCommit without a generation),
// which Kafka accepts for a group with no members.
func (k *Kafka) CommitOffsets(group string, offsets map[string]map[int32]int64) {
	k.t.Helper()
	var o kadm.Offsets
	for topic, ps := range offsets {
		for p, at := range ps {
			o.Add(kadm.Offset{Topic: topic, Partition: p, At: at, LeaderEpoch: -1})
		}
	}
	res, err := k.Admin.CommitOffsets(ctx(k.t), group, o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		k.t.Fatalf("commit offsets for group %s: %v", group, err)
	}
}

// GroupCommitted is the oracle for a group's committed offsets (OffsetFetch through kadm).
func (k *Kafka) GroupCommitted(group string) map[string]map[int32]int64 {
	k.t.Helper()
	res, err := k.Admin.FetchOffsets(ctx(k.t), group)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		k.t.Fatalf("fetch offsets of group %s: %v", group, err)
	}
	out := map[string]map[int32]int64{}
	res.Each(func(o kadm.OffsetResponse) {
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.At
	})
	return out
}

// DescribeGroup is the oracle for a group's state and member ids.
func (k *Kafka) DescribeGroup(group string) (state string, members []string) {
	k.t.Helper()
	res, err := k.Admin.DescribeGroups(ctx(k.t), group)
	if err != nil {
		k.t.Fatalf("describe group %s: %v", group, err)
	}
	g := res[group]
	for _, m := range g.Members {
		members = append(members, m.MemberID)
	}
	return g.State, members
}

// Consumer joins group (a real franz-go group consumer of the classic protocol), reads until it
// has seen n records of topics, and commits them. The caller closes it (or leaves it running as
// a live member).
func (k *Kafka) Consumer(group string, n int, topics ...string) *kgo.Client {
	k.t.Helper()
	return k.consume(group, n, topics, nil)
}

// NextGenConsumer is Consumer with Kafka 4's consumer protocol (KIP-848: the broker assigns the
// partitions), which DescribeGroups does not see.
func (k *Kafka) NextGenConsumer(group string, n int, topics ...string) *kgo.Client {
	k.t.Helper()
	return k.consume(group, n, topics, []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer())})
}

func (k *Kafka) consume(group string, n int, topics []string, extra []kgo.Opt) *kgo.Client {
	k.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
	}, extra...)...)
	if err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(cl.Close)
	seen := 0
	for seen < n {
		fetches := cl.PollFetches(ctx(k.t))
		if err := fetches.Err0(); err != nil {
			k.t.Fatalf("consume as group %s: %v", group, err)
		}
		seen += fetches.NumRecords()
	}
	if n > 0 {
		if err := cl.CommitUncommittedOffsets(ctx(k.t)); err != nil {
			k.t.Fatalf("commit as group %s: %v", group, err)
		}
	}
	return cl
}

// WaitForCompaction waits until the log cleaner has removed the partition's first record, and
// returns the offset of the first record a consumer now reads.
func (k *Kafka) WaitForCompaction(topic string, partition int32, limit time.Duration) int64 {
	k.t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if first := k.firstRecordOffset(topic, partition); first > 0 {
			return first
		}
		time.Sleep(time.Second)
	}
	k.t.Fatalf("the log cleaner did not compact %s/%d within %s", topic, partition, limit)
	return 0
}

// firstRecordOffset reads the partition from its start with a plain (group-less) consumer.
func (k *Kafka) firstRecordOffset(topic string, partition int32) int64 {
	k.t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().AtStart()}}),
	)
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	fetches := cl.PollRecords(ctx(k.t), 1)
	if err := fetches.Err0(); err != nil {
		k.t.Fatalf("read %s/%d: %v", topic, partition, err)
	}
	records := fetches.Records()
	if len(records) == 0 {
		return -1
	}
	return records[0].Offset
}

// WaitForOffset waits until ListOffsets for timestamp and isolation answers want: markers and
// transaction outcomes reach partitions a moment after the producer is told.
func (k *Kafka) WaitForOffset(topic string, partition int32, timestamp int64, isolation int8, want int64, limit time.Duration) {
	k.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		got, _ := k.ListOffset(topic, partition, timestamp, isolation)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("oracle: %s/%d ListOffsets(%d, isolation %d) is %d, still not %d after %s",
				topic, partition, timestamp, isolation, got, want, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// DescribeNextGenGroup is the oracle for a KIP-848 consumer group (ConsumerGroupDescribe through
// kadm): its state, epoch and member ids.
func (k *Kafka) DescribeNextGenGroup(group string) (state string, epoch int32, members []string) {
	k.t.Helper()
	res, err := k.Admin.DescribeConsumerGroups(ctx(k.t), group)
	if err != nil {
		k.t.Fatalf("describe consumer group %s: %v", group, err)
	}
	g := res[group]
	if g.Err != nil {
		k.t.Fatalf("describe consumer group %s: %v", group, g.Err)
	}
	for _, m := range g.Members {
		members = append(members, m.MemberID)
	}
	return g.State, g.Epoch, members
}

// WaitForNextGenGroup waits until the KIP-848 group reports state.
func (k *Kafka) WaitForNextGenGroup(group, state string) {
	k.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := k.Admin.DescribeConsumerGroups(ctx(k.t), group)
		if err == nil && res[group].Err == nil && res[group].State == state {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("consumer group %s not %s after 30s (%v)", group, state, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// LimitedUser creates a SCRAM-SHA-512 user that may only DESCRIBE the given groups and topics
// (the broker runs an ACL authorizer) and returns its name and password. The test is skipped where
// the brokers keep no SCRAM credentials (SCRAMMissing: KRaft before Kafka 3.5).
func (k *Kafka) LimitedUser(groups, topics []string) (user, password string) {
	k.t.Helper()
	k.RequireSCRAM()
	name := TopicName(k.t, "")
	user, password = "tfacc-limited-"+name[len(name)-8:], "limited-password"
	res, err := k.Admin.AlterUserSCRAMs(ctx(k.t), nil, []kadm.UpsertSCRAM{{
		User: user, Mechanism: kadm.ScramSha512, Iterations: 4096, Password: password,
	}})
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		k.t.Fatalf("create SCRAM user %s: %v", user, err)
	}
	acl := kadm.NewACLs().Allow("User:" + user).AllowHosts().Groups(groups...).Topics(topics...).
		Operations(kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternLiteral)
	created, err := k.Admin.CreateACLs(ctx(k.t), acl)
	if err == nil {
		for _, c := range created {
			if c.Err != nil {
				err = c.Err
			}
		}
	}
	if err != nil {
		k.t.Fatalf("create ACLs for %s: %v", user, err)
	}
	k.waitAsUser(user, password, "its SCRAM login and its DESCRIBE on the topics and groups", func(cl *kgo.Client) bool {
		md, err := metadataAs(ctx(k.t), cl, topics)
		if err != nil {
			return false
		}
		for _, t := range md.Topics {
			if t.ErrorCode == kerr.TopicAuthorizationFailed.Code {
				return false
			}
		}
		if len(groups) == 0 {
			return true
		}
		dg := kmsg.NewPtrDescribeGroupsRequest()
		dg.Groups = groups
		res, err := dg.RequestWith(ctx(k.t), cl)
		if err != nil {
			return false
		}
		for _, g := range res.Groups {
			if g.ErrorCode == kerr.GroupAuthorizationFailed.Code {
				return false
			}
		}
		return true
	})
	return user, password
}

// aclWait bounds waitAsUser: a broker applies new ACLs and SCRAM credentials when it replays the
// metadata (or hears from ZooKeeper), a moment after the admin request returns; on a CI machine
// running several brokers that moment passed a second.
const aclWait = 30 * time.Second

// waitAsUser polls, as user over the SASL_PLAINTEXT listener (SCRAM-SHA-512), until ready says
// the broker answers as the ACLs just created allow; what names them for the failure.
func (k *Kafka) waitAsUser(user, password, what string, ready func(*kgo.Client) bool) {
	k.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(Auth(k.t).SASLPlaintext),
		kgo.SASL(scram.Auth{User: user, Pass: password}.AsSha512Mechanism()), kgo.RequestRetries(0))
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	for deadline := time.Now().Add(aclWait); !ready(cl); {
		if time.Now().After(deadline) {
			k.t.Fatalf("%s: %s not in effect after %s", user, what, aclWait)
		}
		cl.ForceMetadataRefresh()
		time.Sleep(200 * time.Millisecond)
	}
}

// metadataAs is a Metadata answer to cl for topics (none: no topic).
func metadataAs(ctx context.Context, cl *kgo.Client, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}

// AllowClusterDescribe lets user DESCRIBE the cluster: ListGroups then lists every group, not
// only those the user may DESCRIBE. It returns once the broker says so to the user itself
// (Metadata's cluster-authorized operations).
func (k *Kafka) AllowClusterDescribe(user, password string) {
	k.t.Helper()
	acl := kadm.NewACLs().Allow("User:" + user).AllowHosts().Clusters().Operations(kadm.OpDescribe).
		ResourcePatternType(kadm.ACLPatternLiteral)
	created, err := k.Admin.CreateACLs(ctx(k.t), acl)
	for _, c := range created {
		err = errors.Join(err, c.Err)
	}
	if err != nil {
		k.t.Fatalf("allow %s to DESCRIBE the cluster: %v", user, err)
	}
	const describe = 1 << 8 // AclOperation DESCRIBE's bit in an authorized-operations field
	k.waitAsUser(user, password, "DESCRIBE on the cluster", func(cl *kgo.Client) bool {
		req := kmsg.NewPtrDescribeClusterRequest() // Metadata past v10, which kgo sends, no longer says
		req.IncludeClusterAuthorizedOperations = true
		res, err := req.RequestWith(ctx(k.t), cl)
		return err == nil && res.ErrorCode == 0 && res.ClusterAuthorizedOperations != math.MinInt32 &&
			res.ClusterAuthorizedOperations&describe != 0
	})
}

// RequireConsumerGroupProtocol skips the test unless every broker serves Kafka 4's consumer group
// protocol (KIP-848) as the test's consumer uses it, asked through kadm. Two answers say "no":
//   - ApiVersions lists ConsumerGroupHeartbeat (API key 68) not at all (Kafka before 3.7, Kafka 4
//     with group.version 0) or only at v0 (the early access of Kafka 3.7 to 3.9, which lists it
//     whether or not it is enabled); franz-go's consumer joins with KIP-848 only from v1 (Kafka
//     4.0) on, and otherwise silently joins a classic group;
//   - the broker config group.coordinator.rebalance.protocols lacks "consumer".
func (k *Kafka) RequireConsumerGroupProtocol() {
	k.t.Helper()
	if reason := k.consumerGroupProtocolMissing(); reason != "" {
		k.t.Skip(reason)
	}
}

// SupportsNextGenGroups reports whether every broker serves Kafka 4's consumer group protocol, as
// RequireConsumerGroupProtocol decides, for tests that do something else where it does not.
func (k *Kafka) SupportsNextGenGroups() bool {
	k.t.Helper()
	reason := k.consumerGroupProtocolMissing()
	if reason != "" {
		k.t.Log(reason)
	}
	return reason == ""
}

// consumerGroupProtocolMissing says why the brokers do not serve the consumer group protocol as
// the tests' consumer uses it, "" when they do.
func (k *Kafka) consumerGroupProtocolMissing() string {
	k.t.Helper()
	for _, v := range k.apiVersions() {
		heartbeat, ok := v.KeyMaxVersion(kmsg.ConsumerGroupHeartbeat.Int16())
		if !ok {
			return fmt.Sprintf("KIP-848: broker %d (%s) does not serve the consumer group protocol: ConsumerGroupHeartbeat "+
				"(API key 68) is absent from its ApiVersions answer", v.NodeID, v.VersionGuess())
		}
		if heartbeat < 1 {
			return fmt.Sprintf("KIP-848: broker %d (%s) serves only the early-access consumer group protocol: "+
				"ConsumerGroupHeartbeat (API key 68) up to v%d in its ApiVersions answer; the test's consumer "+
				"(franz-go) needs v1 (Kafka 4.0)", v.NodeID, v.VersionGuess(), heartbeat)
		}
		if protocols := k.brokerConfig(v.NodeID, rebalanceProtocols); protocols != nil &&
			!slices.Contains(strings.Split(*protocols, ","), "consumer") {
			return fmt.Sprintf("KIP-848: broker %d (%s) does not serve the consumer group protocol: %s is %q, without "+
				"\"consumer\"", v.NodeID, v.VersionGuess(), rebalanceProtocols, *protocols)
		}
	}
	return ""
}

const rebalanceProtocols = "group.coordinator.rebalance.protocols"

// apiVersions is every broker's ApiVersions answer, through kadm.
func (k *Kafka) apiVersions() []kadm.BrokerApiVersions {
	k.t.Helper()
	versions, err := k.Admin.ApiVersions(ctx(k.t))
	if err != nil {
		k.t.Fatalf("oracle ApiVersions: %v", err)
	}
	for _, v := range versions.Sorted() {
		if v.Err != nil {
			k.t.Fatalf("oracle ApiVersions of broker %d: %v", v.NodeID, v.Err)
		}
	}
	return versions.Sorted()
}

// brokerConfig is one broker's value of a config (DescribeConfigs through kadm); nil when the
// broker does not know the config.
func (k *Kafka) brokerConfig(broker int32, key string) *string {
	k.t.Helper()
	configs, err := k.Admin.DescribeBrokerConfigs(ctx(k.t), broker)
	if err != nil {
		k.t.Fatalf("oracle DescribeConfigs of broker %d: %v", broker, err)
	}
	for _, r := range configs {
		if r.Err != nil {
			k.t.Fatalf("oracle DescribeConfigs of broker %d: %v", broker, r.Err)
		}
		for _, c := range r.Configs {
			if c.Key == key {
				return c.Value
			}
		}
	}
	return nil
}
