/**
 * The deployment ttl-streams needs, rendered from its configuration: every topic it reads or writes, with the
 * settings it depends on and why ({@link io.ttlstreams.platform.TopicPlan}), one Kafka principal per role with
 * exactly the ACLs the trust model grants ({@link io.ttlstreams.platform.AclPlan}), and the connectors; written as
 * Strimzi resources, a reviewable {@code kafka-topics}/{@code kafka-acls} script or JSON
 * ({@link io.ttlstreams.platform.StrimziResources}, {@link io.ttlstreams.platform.KafkaCliScript}, {@link
 * io.ttlstreams.platform.PlatformJson}). The processor checks declared topics against the same plan.
 */
package io.ttlstreams.platform;
