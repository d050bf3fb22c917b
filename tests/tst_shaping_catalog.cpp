#include <QtTest>

class Placeholder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void placeholder() { QVERIFY(true); }
};

QTEST_GUILESS_MAIN(Placeholder)
#include "tst_shaping_catalog.moc"
