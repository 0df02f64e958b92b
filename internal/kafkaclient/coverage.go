package kafkaclient

// What a group read can see. Kafka leaves every topic the principal may not DESCRIBE out of
// Metadata for all topics and out of OffsetFetch for all topics, silently: a read of "every topic
// the group reads" (no topics named) would judge the group on the topics it was shown, and call it
// caught up while records wait on a topic it was not. So such a read asks each broker which topics
// it holds (DescribeLogDirs, which needs DESCRIBE on the cluster and lists every topic, whatever
// the principal may DESCRIBE), and asks Metadata about each topic it was not shown: Kafka answers
// TOPIC_AUTHORIZATION_FAILED for a hidden one. Where any is hidden, or where the brokers do not
// say, the verdict is false with the reason (verdict.go). A read that names its topics needs none
// of this: Metadata for a named topic says TOPIC_AUTHORIZATION_FAILED, and the read fails.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// internalTopics are Apache Kafka's own topics, which a consumer group does not read and a
// least-privileged principal may not DESCRIBE: left out of the hidden ones.
var internalTopics = []string{"__consumer_offsets", "__transaction_state", "__share_group_state",
	"__remote_log_metadata", "__cluster_metadata"}

// maxHiddenNamed bounds the hidden topics a reason names; the rest are counted.
const maxHiddenNamed = 10

// unseenTopics says why a read of every topic the group reads, given s (what the cluster holds,
// holdings.go), cannot vouch that it saw them all; "" where it can. It fails only where a broker
// could not be asked (a connection, retried by the read).
func (cv *clusterView) unseenTopics(ctx context.Context, s *clusterSnapshot) (string, error) {
	hidden, unknown, err := cv.hiddenTopics(ctx, s, func(topic string) bool { return !slices.Contains(internalTopics, topic) })
	switch {
	case err != nil:
		return "", err
	case unknown != "":
		return "topics not seen: cannot tell whether the provider's principal may DESCRIBE every topic (" + unknown +
			"), and Kafka leaves the topics it may not out of the read: set topics to the topics the group " +
			"reads" + orGrantDescribeCluster(unknown), nil
	case len(hidden) == 0:
		return "", nil
	}
	return fmt.Sprintf("topics not seen: the provider's principal may not DESCRIBE %d topic%s of the cluster (%s), "+
		"which Kafka leaves out of the read, so the group may read them unseen: set topics to the topics the "+
		"group reads, or grant the principal DESCRIBE on those topics", len(hidden), plural(len(hidden)), namedTopics(hidden)), nil
}

// notByACL ends a reason the brokers could not say which topics they hold that no ACL changes: a
// broker that does not serve DescribeLogDirs, a log directory offline.
const notByACL = ", which no ACL changes"

// DescribeClusterHelps says whether granting the principal DESCRIBE on the cluster would let the
// brokers say which topics they hold, where unseen (a read's, "" where they said) says why they
// did not: only where every broker that did not say refused the principal.
func DescribeClusterHelps(unseen string) bool {
	return unseen != "" && !strings.Contains(unseen, notByACL)
}

// orGrantDescribeCluster is the advice that ends a "topics not seen" reason, where it can help.
func orGrantDescribeCluster(unseen string) string {
	if !DescribeClusterHelps(unseen) {
		return ""
	}
	return ", or grant the principal DESCRIBE on the cluster"
}

// hiddenTopics is every topic the brokers hold that keep selects and s's Metadata for every topic
// left out because the principal may not DESCRIBE it, sorted; or, in unknown, why the brokers
// could not say which topics they hold. Each such topic is asked by name, fresh, before it is
// called hidden (hiddenOf): s may be older than the read.
func (cv *clusterView) hiddenTopics(ctx context.Context, s *clusterSnapshot, keep func(string) bool) (hidden []string, unknown string, err error) {
	absent, unknown, err := cv.holdings.absentTopics(ctx, s)
	if err != nil || unknown != "" {
		return nil, unknown, err
	}
	var candidates []string
	for _, topic := range absent {
		if keep(topic) {
			candidates = append(candidates, topic)
		}
	}
	hidden, err = cv.hiddenOf(ctx, candidates)
	return hidden, "", err
}

// namedTopics names at most maxHiddenNamed of topics, counting the rest.
func namedTopics(topics []string) string {
	named := strings.Join(topics[:min(len(topics), maxHiddenNamed)], ", ")
	if len(topics) > maxHiddenNamed {
		named += fmt.Sprintf(" and %d more", len(topics)-maxHiddenNamed)
	}
	return named
}

// hiddenOf is those of topics that Metadata asked by name answers TOPIC_AUTHORIZATION_FAILED for,
// sorted: the others were created or deleted since the Metadata for every topic.
func (cv *clusterView) hiddenOf(ctx context.Context, topics []string) ([]string, error) {
	if len(topics) == 0 {
		return nil, nil
	}
	res, err := cv.askMetadata(ctx, topics)
	if err != nil {
		return nil, err
	}
	var hidden []string
	for _, t := range res.Topics {
		if kafka.Error(t.ErrorCode) == kafka.TopicAuthorizationFailed {
			hidden = append(hidden, deref(t.Topic))
		}
	}
	slices.Sort(hidden)
	return hidden, nil
}

// heldTopics is every topic the brokers hold a replica of (DescribeLogDirs to each, at once),
// sorted; or, in unknown, why some broker did not say.
func (cv *clusterView) heldTopics(ctx context.Context, brokers []leader) (topics []string, unknown string, err error) {
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		errs     []error
		unknowns []string
	)
	for _, b := range brokers {
		wg.Go(func() {
			held, why, err := cv.describeLogDirs(ctx, b)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				errs = append(errs, err)
			case why != "":
				unknowns = append(unknowns, why)
			}
			topics = append(topics, held...)
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, "", err
	}
	slices.Sort(unknowns)
	slices.Sort(topics)
	return slices.Compact(topics), strings.Join(unknowns, "; "), nil
}

// describeLogDirs asks broker b for the topics of every log directory it has; why says what
// kept it from answering them all (not served, not authorized, an offline directory).
func (cv *clusterView) describeLogDirs(ctx context.Context, b leader) (topics []string, why string, err error) {
	op := "DescribeLogDirs"
	who := describeBroker(b.address, int(b.id))
	conn, err := cv.brokers.Get(ctx, b.address)
	if err != nil {
		return nil, "", cv.requestError(op, b.address, int(b.id), err)
	}
	if _, served := conn.Version(kmsg.DescribeLogDirs); !served {
		return nil, who + " does not serve DescribeLogDirs" + notByACL, nil
	}
	m, err := conn.RoundTrip(ctx, &kmsg.DescribeLogDirsRequest{}) // Topics null: every topic
	if err != nil {
		return nil, "", cv.requestError(op, b.address, int(b.id), err)
	}
	res, err := answerAs[*kmsg.DescribeLogDirsResponse](op+" from "+who, m)
	if err != nil {
		return nil, "", err
	}
	if res.ErrorCode != 0 {
		return nil, refusal(who, res.ErrorCode), nil
	}
	if len(res.Dirs) == 0 { // before v3, how a broker refuses a principal without DESCRIBE on the cluster
		return nil, who + " answered DescribeLogDirs with no log directory (it needs DESCRIBE on the cluster)", nil
	}
	for _, d := range res.Dirs {
		if d.ErrorCode != 0 {
			return nil, refusal(fmt.Sprintf("%s, log directory %s,", who, d.Dir), d.ErrorCode), nil
		}
		for _, t := range d.Topics {
			topics = append(topics, t.Topic)
		}
	}
	return topics, "", nil
}

// refusal says that who answered DescribeLogDirs with code, in Kafka's current name for it; an ACL
// changes nothing but CLUSTER_AUTHORIZATION_FAILED.
func refusal(who string, code int16) string {
	name, _ := wire.ErrorName(kafka.Error(code))
	why := fmt.Sprintf("%s answered DescribeLogDirs with %s (error code %d)", who, name, code)
	if kafka.Error(code) != kafka.ClusterAuthorizationFailed {
		why += notByACL
	}
	return why
}
