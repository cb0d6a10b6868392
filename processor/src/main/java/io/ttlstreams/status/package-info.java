/**
 * This instance at a glance: {@code GET /v1/status} as JSON (state, readiness, tasks, schedule figures, expiry lag,
 * connectors, sources' freshness) and {@code GET /}, the self-refreshing status page that shows it with the
 * upcoming-expiries histogram ({@link io.ttlstreams.status.StatusEndpoint}). It reads the other capabilities (health,
 * metrics, queries) and serves nothing of its own but this view.
 */
package io.ttlstreams.status;
