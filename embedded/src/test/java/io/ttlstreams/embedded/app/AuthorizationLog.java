package io.ttlstreams.embedded.app;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * What the embedded broker's authorizer decided, as it logs it ({@code kafka.authorizer.logger}: a grant of access at
 * DEBUG, a refusal of an access asked for at INFO): each grant once, with the step of the test it came in, and every
 * refusal. Watching the pipeline ({@link EmbeddedPipelineExtension#watchedBy}), it sees the stack's start-up too.
 *
 * <p>{@link #refusedWithout} replays the grants through Kafka's own {@code StandardAuthorizer} loaded with a plan less
 * one ACL: which requests of the run would have been refused without it.
 */
final class AuthorizationLog implements EmbeddedPipelineExtension.Watch {

    /** The logger StandardAuthorizer audits with. */
    private static final String LOGGER = "kafka.authorizer.logger";

    private static final Pattern DECISION = Pattern.compile("Principal = (\\S+) is (Allowed|Denied) operation = (\\S+)"
            + " from host = \\S+ on resource = ([A-Za-z]+):([A-Z_]+):(.*) for request = (\\S+) with resourceRefCount");

    /** The resource type names the authorizer logs ({@code SecurityUtils.resourceTypeName}). */
    private static final Map<String, ResourceType> TYPES = Map.of(
            "Topic", ResourceType.TOPIC,
            "Group", ResourceType.GROUP,
            "TransactionalId", ResourceType.TRANSACTIONAL_ID,
            "Cluster", ResourceType.CLUSTER,
            "DelegationToken", ResourceType.DELEGATION_TOKEN,
            "User", ResourceType.USER);

    /** One decision: a principal allowed or refused an operation on a resource, for a request, during a step. */
    record Decision(
            String principal,
            boolean allowed,
            AclOperation operation,
            ResourceType type,
            String name,
            String request,
            String during) {

        /** As the broker says it, shortly. */
        @Override
        public String toString() {
            return principal + (allowed ? " allowed " : " refused ") + operation + " on " + type + " " + name + " ("
                    + request + ", during " + during + ")";
        }

        /** The decision without the step: two decisions with the same key are one grant. */
        String key() {
            return principal + " " + allowed + " " + operation + " " + type + " " + name + " " + request;
        }
    }

    private final Map<String, Decision> grants = new ConcurrentHashMap<>();
    private final List<Decision> refusals = new CopyOnWriteArrayList<>();
    private volatile String step = "start-up";
    private volatile boolean recordingGrants = true;
    private LoggerContext context;

    @Override
    public void beforeStart() {
        context = LoggerContext.getContext(false);
        Configuration configuration = context.getConfiguration();
        AbstractAppender appender = new AbstractAppender("authorizations", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                record(event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        configuration.addAppender(appender);
        LoggerConfig logger = new LoggerConfig(LOGGER, Level.DEBUG, false);
        logger.addAppender(appender, Level.DEBUG, null);
        configuration.addLogger(LOGGER, logger);
        context.updateLoggers();
    }

    @Override
    public void afterStop() {
        Configuration configuration = context.getConfiguration();
        configuration.removeLogger(LOGGER);
        context.updateLoggers();
    }

    private void record(String message) {
        Matcher matcher = DECISION.matcher(message);
        if (!matcher.find() || !TYPES.containsKey(matcher.group(4))) {
            return;
        }
        Decision decision = new Decision(
                matcher.group(1),
                matcher.group(2).equals("Allowed"),
                AclOperation.valueOf(matcher.group(3)),
                TYPES.get(matcher.group(4)),
                matcher.group(6),
                matcher.group(7),
                step);
        if (!decision.allowed()) {
            refusals.add(decision);
        } else if (recordingGrants) {
            grants.putIfAbsent(decision.key(), decision);
        }
    }

    /** The grants that follow come during {@code name}. */
    void during(String name) {
        step = name;
    }

    /** Stops collecting grants: what follows (refusals tried on purpose) must not count as needed. */
    void stopCollectingGrants() {
        recordingGrants = false;
        step = "after the positive run";
    }

    /** Every access granted while collecting, each once, with the step it first came in. */
    List<Decision> grants() {
        return List.copyOf(grants.values());
    }

    /** Every refusal so far, in order. */
    List<Decision> refusals() {
        return List.copyOf(refusals);
    }

    /**
     * The grants of the run that Kafka's {@code StandardAuthorizer}, with {@code plan} less {@code removed} and
     * {@code allow.everyone.if.no.acl.found=false}, refuses: what the run needed that ACL for.
     */
    List<Decision> refusedWithout(AclBinding removed, List<AclBinding> plan) {
        StandardAuthorizer authorizer = new StandardAuthorizer();
        Map<String, Object> configs = new HashMap<>();
        configs.put(StandardAuthorizer.ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG, "false");
        authorizer.configure(configs);
        Metrics metrics = new Metrics();
        authorizer.withPluginMetrics(new PluginMetrics() {
            @Override
            public MetricName metricName(String name, String description, LinkedHashMap<String, String> tags) {
                return metrics.metricName(name, "authorizer-replay", description, tags);
            }

            @Override
            public void addMetric(MetricName name, MetricValueProvider<?> provider) {
                metrics.addMetric(name, provider);
            }

            @Override
            public void removeMetric(MetricName name) {
                metrics.removeMetric(name);
            }

            @Override
            public Sensor addSensor(String name) {
                return metrics.sensor(name);
            }

            @Override
            public void removeSensor(String name) {
                metrics.removeSensor(name);
            }
        });
        Map<Uuid, StandardAcl> acls = new LinkedHashMap<>();
        for (AclBinding binding : plan) {
            if (!binding.equals(removed)) {
                acls.put(Uuid.randomUuid(), StandardAcl.fromAclBinding(binding));
            }
        }
        authorizer.loadSnapshot(acls);
        authorizer.completeInitialLoad();
        List<Decision> refused = new ArrayList<>();
        for (Decision grant : grants.values()) {
            if (!grant.principal().startsWith(KafkaPrincipal.USER_TYPE + ":ttl-")) {
                continue; // the stack's set-up, as the super user
            }
            // Not logged (logIfAllowed, logIfDenied false): only the broker's own decisions are recorded.
            Action action = new Action(
                    grant.operation(),
                    new ResourcePattern(grant.type(), grant.name(), PatternType.LITERAL),
                    1,
                    false,
                    false);
            if (authorizer.authorize(context(grant), List.of(action)).get(0) == AuthorizationResult.DENIED) {
                refused.add(grant);
            }
        }
        metrics.close();
        return refused;
    }

    /** The request context of a grant: its principal and request, from loopback. */
    private static AuthorizableRequestContext context(Decision grant) {
        String[] principal = grant.principal().split(":", 2);
        short requestType = Arrays.stream(ApiKeys.values())
                .filter(key -> key.name.equals(grant.request()))
                .findFirst()
                .orElse(ApiKeys.METADATA)
                .id;
        return new AuthorizableRequestContext() {
            @Override
            public String listenerName() {
                return "CLIENT";
            }

            @Override
            public SecurityProtocol securityProtocol() {
                return SecurityProtocol.SASL_PLAINTEXT;
            }

            @Override
            public KafkaPrincipal principal() {
                return new KafkaPrincipal(principal[0], principal[1]);
            }

            @Override
            public InetAddress clientAddress() {
                return InetAddress.getLoopbackAddress();
            }

            @Override
            public int requestType() {
                return requestType;
            }

            @Override
            public int requestVersion() {
                return 0;
            }

            @Override
            public String clientId() {
                return "replay";
            }

            @Override
            public int correlationId() {
                return 0;
            }
        };
    }
}
