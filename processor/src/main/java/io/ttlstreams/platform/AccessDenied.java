package io.ttlstreams.platform;

import io.ttlstreams.config.KafkaClientSecurity;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.platform.Acl.Resource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * A Kafka authorization failure said in the terms of the {@link AclPlan}: which principal was refused what, on which
 * resource, and which ACL of those {@code ttl-streams platform} renders grants it. A missing ACL so stops the processor
 * (or {@code resync}, {@code approve}) with one line naming it, instead of Kafka's {@code Not authorized to access
 * topics: [...]} deep in a stack trace.
 *
 * @param message the line to print and log
 */
public record AccessDenied(String message) {

    /** How far down a chain of causes to look; a chain can be circular. */
    private static final int MAX_CAUSES = 16;

    /** Where docs/deployment.md says how to apply the rendered ACLs. */
    static final String HOW_TO_GRANT =
            "apply the ACLs ttl-streams platform --config FILE renders (--format kafka-cli, or the KafkaUsers of"
                    + " --format strimzi; docs/deployment.md, \"Running with authorization: simple\")";

    /** What was asked, when the caller knows it: the operation and the resource. */
    public record Request(String operation, Resource type, String name) {}

    /**
     * The authorization failure in {@code error}'s chain of causes, said for the plan's {@code planUser} ({@link
     * AclPlan#PROCESSOR_USER}, {@link AclPlan#OPERATOR_USER}) running with {@code config}'s client settings.
     *
     * @param request what the client asked, when the caller knows it (Kafka's exceptions name the resource, not always
     *     the operation)
     * @return empty when {@code error} is no authorization failure
     */
    public static Optional<AccessDenied> in(
            Throwable error, TtlStreamsConfig config, String planUser, Optional<Request> request) {
        Throwable cause = error;
        for (int link = 0; cause != null && link < MAX_CAUSES; link++, cause = cause.getCause()) {
            if (cause instanceof AuthorizationException denied) {
                return Optional.of(describe(denied, config, planUser, request));
            }
        }
        return Optional.empty();
    }

    /** As {@link #in(Throwable, TtlStreamsConfig, String, Optional)}, for a client that knows only the exception. */
    public static Optional<AccessDenied> in(Throwable error, TtlStreamsConfig config, String planUser) {
        return in(error, config, planUser, Optional.empty());
    }

    private static AccessDenied describe(
            AuthorizationException denied, TtlStreamsConfig config, String planUser, Optional<Request> request) {
        Optional<KafkaPrincipal> planned = plan(config).flatMap(plan -> plan.principal(planUser));
        String who = principal(config, "User:" + planUser);
        List<Target> targets = targets(denied, planned, request);
        String kafka = denied.getClass().getSimpleName() + ": " + denied.getMessage();
        if (targets.isEmpty()) {
            return new AccessDenied("Kafka refused " + who + " an operation (" + kafka + "): " + HOW_TO_GRANT);
        }
        List<String> refusals = new ArrayList<>();
        List<String> grants = new ArrayList<>();
        for (Target target : targets) {
            refusals.add(request.map(Request::operation).orElse("access") + " on " + target.describe());
            List<Acl> granting = planned.map(principal -> principal.acls().stream()
                            .filter(acl -> target.grantedBy(acl))
                            .toList())
                    .orElse(List.of());
            if (granting.isEmpty()) {
                grants.add("nothing on " + target.describe()
                        + " (is this the configuration the ACLs were rendered from? topic names and application.id"
                        + " must match)");
            } else {
                granting.forEach(acl -> grants.add(String.join(", ", acl.operations()) + " on "
                        + acl.resource().strimziType() + " " + acl.name() + (acl.prefixed() ? "* (prefix)" : "")));
            }
        }
        return new AccessDenied("Kafka refused " + who + " " + String.join("; ", refusals) + " (" + kafka
                + "). The plan grants User:" + planUser + " " + String.join("; ", grants) + ": " + HOW_TO_GRANT);
    }

    /** The principal the clients authenticate as, with the plan's name for it when that differs or is unknown. */
    private static String principal(TtlStreamsConfig config, String planned) {
        Optional<String> actual;
        try {
            actual = KafkaClientSecurity.of(config).principal();
        } catch (RuntimeException unusable) {
            actual = Optional.empty();
        }
        return actual.map(name -> name.equals(planned) ? name : name + " (the plan's " + planned + ")")
                .orElse("the principal of this configuration's client settings (the plan's " + planned + ")");
    }

    /** The plan of {@code config}, whose processor and operator ACLs do not depend on the Connect cluster. */
    private static Optional<AclPlan> plan(TtlStreamsConfig config) {
        try {
            return Optional.of(AclPlan.of(
                    config, TopicPlan.of(config, 1, OptionalInt.empty()), PlatformSettings.DEFAULT_CONNECT_CLUSTER));
        } catch (RuntimeException notRenderable) {
            return Optional.empty();
        }
    }

    /** The resources {@code denied} names, or else the one the caller asked for. */
    private static List<Target> targets(
            AuthorizationException denied, Optional<KafkaPrincipal> planned, Optional<Request> request) {
        Set<Target> targets = new LinkedHashSet<>();
        if (denied instanceof TopicAuthorizationException topics) {
            topics.unauthorizedTopics().forEach(topic -> targets.add(new Target(Resource.TOPIC, topic)));
        } else if (denied instanceof GroupAuthorizationException group && group.groupId() != null) {
            targets.add(new Target(Resource.GROUP, group.groupId()));
        } else if (denied instanceof TransactionalIdAuthorizationException) {
            // Kafka does not name the id; the plan's prefix is the one the processor's ids start with.
            planned.stream()
                    .flatMap(principal -> principal.acls().stream())
                    .filter(acl -> acl.resource() == Resource.TRANSACTIONAL_ID)
                    .forEach(acl -> targets.add(new Target(Resource.TRANSACTIONAL_ID, acl.name() + "*")));
        } else if (denied instanceof ClusterAuthorizationException) {
            targets.add(new Target(null, "kafka-cluster"));
        }
        if (targets.isEmpty()) {
            request.ifPresent(asked -> targets.add(new Target(asked.type(), asked.name())));
        }
        return List.copyOf(targets);
    }

    /** A resource a client was refused; {@code type} null for the cluster. */
    private record Target(Resource type, String name) {

        String describe() {
            return type == null ? "the cluster" : type.strimziType() + " " + name;
        }

        /** Whether {@code acl} is the plan's grant on this resource. */
        boolean grantedBy(Acl acl) {
            if (type == null || acl.resource() != type) {
                return false;
            }
            String literal = name.endsWith("*") ? name.substring(0, name.length() - 1) : name;
            return acl.prefixed() ? literal.startsWith(acl.name()) : acl.name().equals(literal);
        }
    }

    @Override
    public String toString() {
        return message;
    }
}
