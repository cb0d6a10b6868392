/**
 * What the ttl-streams processor and the sink side of the pipeline agree on: MongoDB {@link
 * io.ttlstreams.contract.Namespace namespaces} and {@link io.ttlstreams.contract.NamespacePattern patterns}, the
 * {@link io.ttlstreams.contract.DeleteCommand delete command} the MongoDB sink connector applies, and {@link
 * io.ttlstreams.contract.CanonicalJson canonical JSON}. Only the BSON library is needed, so that a Kafka Connect
 * plugin can carry this package.
 */
package io.ttlstreams.contract;
