//! `devmgr copy-store`: every row of one store into an empty other one
//! (docs/operations.md, "Moving between stores").

use crate::ports::{Counts, StoreTransfer, Table, TransferError};

/// Copies every row of `source` into `target`, in one transaction on the
/// target, which must be empty; returns how many rows each table had.
/// The target is checked before anything is read; on any failure nothing
/// is committed.
pub async fn copy_store(
    source: &dyn StoreTransfer,
    target: &dyn StoreTransfer,
) -> Result<Counts, TransferError> {
    let mut sink = target.import().await?;
    let mut rows = source.export().await?;
    let mut counts: Counts = Table::ALL.iter().map(|table| (*table, 0)).collect();
    while let Some(batch) = rows.next_batch().await? {
        if let Some((_, count)) = counts.iter_mut().find(|(table, _)| *table == batch.table) {
            *count += batch.rows.len() as u64;
        }
        sink.write(batch).await?;
    }
    sink.commit().await?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StoreError;
    use crate::ports::{
        Batch, MockRowSink, MockRowSource, MockStoreTransfer, RowSink, RowSource, Value,
    };
    use mockall::Sequence;
    use std::sync::{Arc, Mutex};

    fn batch(table: Table, rows: usize) -> Batch {
        Batch {
            table,
            rows: (0..rows).map(|n| vec![Value::Integer(n as i64)]).collect(),
        }
    }

    fn source_of(batches: Vec<Batch>) -> MockStoreTransfer {
        let mut source = MockStoreTransfer::new();
        source.expect_export().times(1).return_once(move || {
            let mut rows = MockRowSource::new();
            let mut left = batches.into_iter();
            rows.expect_next_batch().returning(move || Ok(left.next()));
            Ok(Box::new(rows) as Box<dyn RowSource>)
        });
        source
    }

    #[tokio::test]
    async fn every_batch_reaches_the_target_in_order_then_commits_and_is_counted() {
        let source = source_of(vec![
            batch(Table::Accounts, 2),
            batch(Table::Devices, 3),
            batch(Table::Devices, 1),
        ]);
        let written = Arc::new(Mutex::new(Vec::new()));
        let mut target = MockStoreTransfer::new();
        let seen = written.clone();
        target.expect_import().times(1).return_once(move || {
            let mut sink = MockRowSink::new();
            let mut order = Sequence::new();
            sink.expect_write()
                .times(3)
                .in_sequence(&mut order)
                .returning(move |batch| {
                    seen.lock().unwrap().push((batch.table, batch.rows.len()));
                    Ok(())
                });
            sink.expect_commit()
                .times(1)
                .in_sequence(&mut order)
                .returning(|| Ok(()));
            Ok(Box::new(sink) as Box<dyn RowSink>)
        });
        let counts = copy_store(&source, &target).await.unwrap();
        assert_eq!(
            *written.lock().unwrap(),
            [
                (Table::Accounts, 2),
                (Table::Devices, 3),
                (Table::Devices, 1)
            ]
        );
        assert_eq!(counts.len(), Table::ALL.len());
        for (table, count) in counts {
            let expected = match table {
                Table::Accounts => 2,
                Table::Devices => 4,
                _ => 0,
            };
            assert_eq!(count, expected, "{table:?}");
        }
    }

    #[tokio::test]
    async fn a_target_with_rows_is_refused_before_anything_is_read() {
        let mut source = MockStoreTransfer::new();
        source.expect_export().never();
        let mut target = MockStoreTransfer::new();
        target.expect_import().times(1).return_once(|| {
            Err(TransferError::NotEmpty(vec![
                (Table::Accounts, 1),
                (Table::Devices, 0),
                (Table::DeviceCommands, 7),
            ]))
        });
        let error = copy_store(&source, &target).await.err().unwrap();
        assert_eq!(
            error.to_string(),
            "the target database is not empty (1 accounts, 7 commands): copy-store only fills \
             an empty database"
        );
    }

    #[tokio::test]
    async fn a_failed_read_commits_nothing() {
        let mut source = MockStoreTransfer::new();
        source.expect_export().times(1).return_once(|| {
            let mut rows = MockRowSource::new();
            rows.expect_next_batch()
                .times(1)
                .returning(|| Err(StoreError::message("the disk is gone")));
            Ok(Box::new(rows) as Box<dyn RowSource>)
        });
        let mut target = MockStoreTransfer::new();
        target.expect_import().times(1).return_once(|| {
            let mut sink = MockRowSink::new();
            sink.expect_write().never();
            sink.expect_commit().never();
            Ok(Box::new(sink) as Box<dyn RowSink>)
        });
        let error = copy_store(&source, &target).await.err().unwrap();
        assert_eq!(error.to_string(), "the disk is gone");
    }
}
