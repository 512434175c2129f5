package io.github.redislock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * A jump of the client's wall clock (NTP, a resumed VM, an operator) changes no lock state: leases, queue deadlines and fencing
 * tokens are Redis's {@code TIME} in the scripts, and every deadline the client keeps (waits, the watchdog's renewals and its
 * doubt, holdAtLeast, Redlock validity, leadership) is {@code System.nanoTime()}. The wall clock is read only for the instants
 * shown to people (the watchdog's last renewal and first failure, a hold's start, a skipped call's "kept until"), which decide
 * nothing: a new read of it elsewhere fails here until someone shows it decides nothing either.
 */
class ClientClockTest {

    private static final JavaClasses LIBRARY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.github.redislock")
            .that(DescribedPredicate.describe("the library, not its test support", (JavaClass type) -> !type.getPackageName().startsWith("io.github.redislock.test")));

    private static final DescribedPredicate<JavaCall<?>> WALL_CLOCK_NOW = DescribedPredicate.describe("java.time's now()",
            call -> call.getName().equals("now") && call.getTargetOwner().getPackageName().equals("java.time"));

    @Test
    void noLibraryClassReadsTheWallClockInMilliseconds() {
        noClasses().should().callMethod(System.class, "currentTimeMillis").check(LIBRARY);
    }

    @Test
    void noLibraryClassHoldsAClock() {
        noClasses().should().dependOnClassesThat().areAssignableTo(Clock.class).check(LIBRARY);
    }

    @Test
    void onlyTheInstantsShownToPeopleComeFromTheWallClock() {
        noClasses().that().doNotHaveFullyQualifiedName("io.github.redislock.core.renewal.LockWatchdog")
                .and().doNotHaveFullyQualifiedName("io.github.redislock.core.hold.HeldLocks")
                .and().doNotHaveFullyQualifiedName("io.github.redislock.annotation.BusyKeys")
                .should().callCodeUnitWhere(WALL_CLOCK_NOW).check(LIBRARY);
    }
}
