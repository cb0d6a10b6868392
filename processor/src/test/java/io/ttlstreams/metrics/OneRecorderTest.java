package io.ttlstreams.metrics;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.ttlstreams.processor.TtlMetrics;
import org.apache.kafka.streams.StreamsMetrics;

/**
 * ttl-streams records each of its events once, into a Micrometer meter that {@link TtlMetrics} names, tags and
 * removes, and that the registry sends to Prometheus and JMX ({@link PrometheusMetrics}): no other class creates a
 * recording meter, none records into Kafka Streams' sensors, and no count is kept beside the meters.
 */
@AnalyzeClasses(packages = "io.ttlstreams", importOptions = ImportOption.DoNotIncludeTests.class)
class OneRecorderTest {

    @ArchTest
    static final ArchRule metersOnlyFromTtlMetrics = noClasses()
            .that()
            .doNotBelongToAnyOf(TtlMetrics.class)
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(
                    Counter.Builder.class,
                    Timer.Builder.class,
                    DistributionSummary.Builder.class,
                    LongTaskTimer.Builder.class)
            .orShould()
            .callMethodWhere(JavaCall.Predicates.target(
                            HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(MeterRegistry.class)))
                    .and(JavaCall.Predicates.target(
                            com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching(
                                    "counter|timer|summary|more"))))
            .because("TtlMetrics names, tags and removes every meter ttl-streams records into");

    @ArchTest
    static final ArchRule noKafkaSensors = noClasses()
            .should()
            .callMethodWhere(JavaCall.Predicates.target(
                    HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(StreamsMetrics.class))))
            .because("ttl-streams' events are Micrometer meters, which Prometheus and JMX both show");

    @ArchTest
    static final ArchRule noCountersBesideTheMeters = noClasses()
            .that()
            .resideInAnyPackage("io.ttlstreams.processor..", "io.ttlstreams.metrics..")
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(
                    java.util.concurrent.atomic.LongAdder.class,
                    java.util.concurrent.atomic.AtomicLong.class,
                    java.util.concurrent.atomic.DoubleAdder.class)
            .because("a count kept beside the meters is a second recorder that neither export shows");
}
