// Regression tests for what the libFuzzer targets (fuzz/) found. Each case is the minimised
// input, written out as a test, with the fix it guards. The fuzz corpora under fuzz/corpus/ are
// also replayed by CTest in the sanitizer tree (label "fuzz").

#include "exec/SecretMasker.h"

#include <QTest>

using flotilla::SecretMasker;

class TestFuzzRegressions final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // fuzz_secrets: with overlapping values, a stream split inside the overlap showed the rest
    // of the longer value ("xx***DEF" for ABC + BCDEF). A mask reaching into the held-back
    // suffix now keeps that suffix pending as "already masked" until it is decided.
    void maskerSplitInsideOverlap_data() {
        QTest::addColumn<QList<QByteArray>>("values");
        QTest::addColumn<QList<QByteArray>>("pieces");
        QTest::addColumn<QByteArray>("expected");
        const QList<QByteArray> abcBcdef{"ABC", "BCDEF"};
        QTest::newRow("overlap-split")
            << abcBcdef << QList<QByteArray>{"xxABCD", "EFyy"} << QByteArray("xx***yy");
        QTest::newRow("overlap-bytewise")
            << abcBcdef << QList<QByteArray>{"x", "A", "B", "C", "D", "E", "F", "y"}
            << QByteArray("x***y");
        QTest::newRow("overlap-not-completed")
            << abcBcdef << QList<QByteArray>{"xxABCD", "Ey"} << QByteArray("xx***DEy");
        QTest::newRow("chain") << QList<QByteArray>{"ABA"}
                               << QList<QByteArray>{"ABAB", "ABA", "BA!"} << QByteArray("***!");
        QTest::newRow("adjacent") << QList<QByteArray>{"AB"} << QList<QByteArray>{"AB", "AB"}
                                  << QByteArray("******");
    }
    void maskerSplitInsideOverlap() {
        QFETCH(QList<QByteArray>, values);
        QFETCH(QList<QByteArray>, pieces);
        QFETCH(QByteArray, expected);
        SecretMasker masker(values);
        QByteArray streamed;
        for (const QByteArray &p : pieces)
            streamed += masker.feed(p);
        streamed += masker.finish();
        QCOMPARE(streamed, expected);
        QCOMPARE(SecretMasker(values).mask(pieces.join()), expected);
        for (const QByteArray &v : values)
            QVERIFY2(!streamed.contains(v), v.constData());
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
