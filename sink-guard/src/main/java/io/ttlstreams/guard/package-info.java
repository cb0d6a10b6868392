/**
 * The sink guard: a Kafka Connect {@link io.ttlstreams.guard.DeleteCommandGuard transformation} on the MongoDB
 * delete sink that applies only delete commands the processor signed, in the grammar it emits, in an allowed
 * namespace, and refuses every other record to the sink's dead-letter topic with the reason. Packaged as a Connect
 * plugin with the contract module and the BSON library.
 */
package io.ttlstreams.guard;
