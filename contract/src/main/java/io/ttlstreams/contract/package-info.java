/**
 * What the ttl-streams processor and the sink side of the pipeline agree on: MongoDB {@link
 * io.ttlstreams.contract.Namespace namespaces} and {@link io.ttlstreams.contract.NamespacePattern patterns}, the
 * {@link io.ttlstreams.contract.DeleteCommand delete command} the MongoDB sink connector applies, {@link
 * io.ttlstreams.contract.CanonicalJson canonical JSON}, the grammar every command must follow ({@link
 * io.ttlstreams.contract.DeleteCommand#parse}) and the {@link io.ttlstreams.contract.SigningKey signature} that
 * proves a command came from the processor ({@link io.ttlstreams.contract.SignatureVerifier}). Only the BSON library
 * and the JDK are needed, so that a Kafka Connect plugin can carry this package.
 */
package io.ttlstreams.contract;
