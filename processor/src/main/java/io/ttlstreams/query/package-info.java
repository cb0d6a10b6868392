/**
 * Interactive queries of the schedule: one document's deadline ({@code GET /v1/documents/{namespace}/{key}}),
 * answered by whichever instance owns its partition and forwarded there when it is another ({@link
 * io.ttlstreams.query.PeerClient}), and upcoming expiries per time bucket ({@code GET /v1/schedule}), merged over
 * every instance ({@link io.ttlstreams.query.ScheduleEndpoints}), all read from the local stores through Kafka Streams
 * ({@link io.ttlstreams.query.LocalSchedule}). Reads only: nothing here changes the schedule.
 */
package io.ttlstreams.query;
