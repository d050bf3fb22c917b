#pragma once
// A copy, on this machine, of the session files a CLI keeps on another host, so that the history
// routes (engine/history: paging, search, sub-agents) read them as they read local ones
// (Provider::sessionFinderAt). Session files only grow: a sync lists the remote files with their
// sizes (one command over the host's link) and fetches only the bytes each one gained since the
// last sync, after checking that the 64 bytes before them are still the ones copied (a file that
// was rewritten or shrank is fetched whole). So reading a page copies nothing when nothing
// changed, and a turn's worth of lines when a turn was added.
//
// Blocking (QProcess::waitForFinished): call it on a worker, as the history routes do.

#include "agents/Provider.h"
#include "base/Error.h"

#include <QString>
#include <QStringList>

namespace flotilla {

struct MirrorTarget {
    QString ssh;
    QStringList sshOptions; // over the host's link (SshLink::sessionOptions)
    QString destination;
    QString mirrorHome; // this machine's copy of the remote home (what is mirrored of it)
};

struct MirrorStats {
    int files = 0;           // remote files listed
    int fetched = 0;         // files that needed bytes
    qint64 bytesFetched = 0; // bytes copied (including each append's 64-byte check)
};

// Brings mirrorHome's copy of `locations` up to date. An error when the listing failed (the
// copy stays as it was).
Result<MirrorStats> syncSessions(const MirrorTarget &target,
                                 const QList<Provider::SessionLocation> &locations);

} // namespace flotilla
