//! The pages of jobs and of a job's targets as the OpenAPI document shows
//! them, and the `{id}` of a job's paths.

use super::json::{EXAMPLE_JOB_ID, JOB_FIELDS, JobJson, TARGET_FIELDS, TargetJson, job_url};
use crate::description::{Described, ObjectSchema, Parameter};
use crate::resources::lists::{Page, id_parameter, page_fields};

/// The `{id}` of a job's paths, as the OpenAPI document shows it.
pub(super) const JOB_ID: Parameter =
    id_parameter("The job's id (a lowercase UUID), as in its `url`.", || {
        EXAMPLE_JOB_ID.into()
    });

/// A page of jobs.
pub const JOB_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "JobPage",
    description: "A page of the account's jobs, newest first: how many jobs there are in all, the URLs of the next and the previous page (null at either end), and the page's jobs.",
    fields: page_fields!(JOB_FIELDS),
};

/// A page of a job's targets.
pub const TARGET_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "JobTargetPage",
    description: "A page of a job's targets, by wave then list order: how many targets it has, the URLs of the next and the previous page (null at either end), and the page's targets.",
    fields: page_fields!(TARGET_FIELDS),
};

impl Described for Page<JobJson> {
    const SCHEMA: &'static ObjectSchema = &JOB_PAGE_SCHEMA;

    fn example() -> Self {
        Page::sample("/jobs/", JobJson::example())
    }
}

impl Described for Page<TargetJson> {
    const SCHEMA: &'static ObjectSchema = &TARGET_PAGE_SCHEMA;

    fn example() -> Self {
        let path = job_url("", EXAMPLE_JOB_ID) + "targets/";
        Page::sample(&path, TargetJson::example())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn pages_write_their_described_fields() {
        assert_described(&Page::<JobJson>::example());
        assert_described(&Page::<TargetJson>::example());
    }
}
